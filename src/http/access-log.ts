/**
 * One structured log line and one metrics sample per answered request, the same for a request Fastify answered
 * (./fastify.ts) and one replayed in front of it (./replay.ts).
 */
import { httpDuration, httpRequests } from '../ops/metrics.js';

/** The metrics children of one listener, method, route pattern and status (bounded: patterns and statuses are few). */
interface HttpMetrics {
  requests: { inc(): void };
  duration: { observe(seconds: number): void };
}
const httpMetrics = new Map<string, HttpMetrics>();

/** The labelled metrics of a request, made once per label set (no labels object built per request; prom-client still hashes it per call). */
function httpMetricsOf(listener: string, method: string, route: string, status: number): HttpMetrics {
  const key = `${listener} ${method} ${status} ${route}`;
  let m = httpMetrics.get(key);
  if (m === undefined) {
    const labels = { listener, method, route, status: String(status) };
    m = { requests: httpRequests.labels(labels), duration: httpDuration.labels(labels) };
    httpMetrics.set(key, m);
  }
  return m;
}

/** The logger an answered request is written to (pino's: a request's child logger, or the listener's). */
export interface AccessLog {
  info(fields: object, msg: string): void;
  isLevelEnabled?: (level: string) => boolean;
}

/**
 * Logs `request` at info (`{...bindings, method, route, status, ms}`) and counts the request in the HTTP metrics.
 * @param route the route pattern (not the raw URL), or 'unmatched'
 * @param ms milliseconds from the request's arrival to its answer
 * @param bindings fields the logger does not carry already (a replay's `request_id`)
 */
export function noteAnswered(
  log: AccessLog,
  listener: string,
  method: string,
  route: string,
  status: number,
  ms: number,
  bindings?: object,
): void {
  // Building the line costs even when pino drops it (the level is above info): skip it then.
  if (log.isLevelEnabled?.('info') !== false) log.info({ ...bindings, method, route, status, ms: Number(ms.toFixed(1)) }, 'request');
  const m = httpMetricsOf(listener, method, route, status);
  m.requests.inc();
  m.duration.observe(ms / 1000);
}

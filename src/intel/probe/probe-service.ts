/**
 * One unpaid probe of one service (docs/intelligence.md): the request an unpaying client would send, through the
 * SSRF-safe fetcher, turned into a dated Snapshot with its parsed offers and archived evidence. Never pays:
 * no payment header is ever sent. Never throws for anything the provider does; every failure is an outcome.
 *
 * Requests (./method-policy.ts): GET or HEAD as listed; POST with an empty body only when a directory declares a
 * payment for the endpoint (`paidPost`); anything else is not sent (outcome `refused`, no request). An MCP tool
 * (svc.tool set) is probed as that empty POST to its endpoint: the tool is never called.
 */
import { probeOutcomes } from '../../ops/metrics.js';
import { parseChallenge } from '../challenge/index.js';
import { archiveEvidence, type ArchivedEvidence } from '../evidence.js';
import { serviceId } from '../service-id.js';
import type { ProbeOutcome, RawResponse, Snapshot } from '../../domain/intel.js';
import { FetchFailed, FetchRefused, FetchTimeout, FetchTooLarge, safeFetch, type SafeFetchOptions } from '../../net/safe-fetch.js';
import { uuidv7 } from './snapshot-id.js';
import { planProbe } from './method-policy.js';
import { boundOffer } from '../read-bounds.js';
import { shortMessage } from '../../domain/errors.js';

/** The service to probe: HTTP method, absolute URL, and the MCP tool name (null for plain HTTP). */
export interface ProbeTarget {
  method: string;
  url: string;
  tool?: string | null;
  /** A directory or discovery document lists an offer for this endpoint (a POST is probed only then). */
  paidPost?: boolean;
}

/** Fetch options of a probe (see SafeFetchOptions; `method`, `headers` and `body` are set by the probe). */
export type ProbeOptions = Omit<SafeFetchOptions, 'method' | 'headers' | 'body'> & {
  /** Clock, for tests; default () => new Date(). */
  now?: () => Date;
};

export interface ProbeResult {
  snapshot: Snapshot;
  /** The archived raw response; null when nothing was received (refused, timeout, unreachable). */
  evidence: ArchivedEvidence | null;
  /** The raw response itself (for the prober's backoff and for callers that show it); null as for evidence. */
  response: RawResponse | null;
}

/** The request of a probe (never a body), or the reason none is sent. */
function requestFor(t: ProbeTarget): Pick<SafeFetchOptions, 'method' | 'headers' | 'body'> | { refused: string } {
  const plan = planProbe(t.tool ? 'POST' : t.method, t.paidPost === true);
  if ('refused' in plan) return plan;
  const accept = t.tool ? 'application/json, text/event-stream' : 'application/json';
  return { method: plan.method, headers: { accept } };
}

/** HTTP status → outcome for answers that are not 402. */
export function outcomeForStatus(status: number): ProbeOutcome {
  if (status >= 200 && status < 300) return 'ok_without_payment';
  if (status === 404 || status === 410) return 'not_found';
  return 'error';
}

/**
 * Probes one service once, without paying.
 * @param svc method, url, tool
 * @param opts fetch limits (timeoutMs: ms total, default 10,000; maxBytes default 1 MiB), allowLoopback (tests/demo)
 * @returns the snapshot (outcome, HTTP status, latency in milliseconds, offers), evidence and raw response
 */
export async function probeService(svc: ProbeTarget, opts: ProbeOptions = {}): Promise<ProbeResult> {
  const now = opts.now ?? (() => new Date());
  const started = now();
  const t0 = performance.now();
  const base = {
    snapshot_id: uuidv7(started.getTime()),
    service_id: serviceId(svc.method, svc.url, svc.tool ?? null),
    checked_at: started.toISOString(),
  };
  const done = (
    outcome: ProbeOutcome,
    response: RawResponse | null,
    error: string | null,
    offers: Snapshot['offers'] = [],
  ): ProbeResult => {
    const evidence = response ? archiveEvidence(response) : null;
    probeOutcomes.inc({ outcome });
    return {
      snapshot: {
        ...base,
        http_status: response?.status ?? null,
        latency_ms: response ? Math.round(performance.now() - t0) : null,
        outcome,
        error,
        evidence_hash: evidence?.sha256 ?? null,
        offers,
      },
      evidence,
      response,
    };
  };
  const request = requestFor(svc);
  if ('refused' in request) return done('refused', null, request.refused);
  let response: RawResponse;
  try {
    response = await safeFetch(svc.url, { ...opts, ...request });
  } catch (err) {
    if (err instanceof FetchTooLarge) return done('too_large', err.response, err.message);
    if (err instanceof FetchRefused) return done('refused', null, err.message);
    if (err instanceof FetchTimeout) return done('timeout', null, err.message);
    if (err instanceof FetchFailed) {
      const unreachable = err.reason === 'dns' || err.reason === 'connect';
      return done(unreachable ? 'unreachable' : 'error', null, err.message);
    }
    return done('error', null, `probe failed: ${shortMessage(err)}`);
  }
  if (response.status === 402) {
    const parsed = parseChallenge(response, { resourceUrl: svc.url });
    if (parsed.offers.length === 0) return done('invalid_challenge', response, parsed.errors.join('; ') || 'no readable challenge');
    return done('payment_required', response, null, parsed.offers.map(boundOffer));
  }
  const outcome = outcomeForStatus(response.status);
  return done(outcome, response, outcome === 'ok_without_payment' ? null : `HTTP ${response.status}`);
}

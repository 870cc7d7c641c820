/**
 * The polite probe scheduler (docs/intelligence.md): per-host concurrency 1, a bound on overall concurrency,
 * an identifying User-Agent (src/net/user-agent.ts), the fetcher's timeout and size cap, and per-host backoff
 * after 429 or 503 that honours Retry-After (seconds or HTTP-date, RFC 9110 §10.2.3), capped at
 * `maxBackoffMs`; without Retry-After the pause doubles from `baseBackoffMs` per consecutive 429/503.
 * "Host" is the provider domain (host and non-default port). Results go to the supplied `onSnapshot`;
 * storing them is the caller's business.
 */
import { sleep } from '../../net/backoff.js';
import { providerDomain } from '../service-id.js';
import { probeService, type ProbeOptions, type ProbeResult, type ProbeTarget } from './probe-service.js';

export interface ProberOptions extends ProbeOptions {
  /** Probes in flight across all hosts; default 8. */
  concurrency?: number;
  /** First backoff pause in milliseconds when a 429/503 has no Retry-After; default 5,000. */
  baseBackoffMs?: number;
  /** Longest backoff pause in milliseconds (also caps Retry-After); default 300,000. */
  maxBackoffMs?: number;
  /** Called with every finished probe (awaited before the host's next probe starts). */
  onSnapshot?: (svc: ProbeTarget, result: ProbeResult) => void | Promise<void>;
  /** Called when onSnapshot throws (svc set) or a round's list() fails (svc null); default: swallowed, so a bad
   * store write never stops probing. */
  onError?: (svc: ProbeTarget | null, err: unknown) => void;
}

interface HostState {
  /** Tail of this host's queue: the next probe starts when it settles. */
  tail: Promise<unknown>;
  /** Epoch ms before which no request is sent to this host. */
  notBefore: number;
  /** Consecutive 429/503 answers. */
  strikes: number;
}

/**
 * Parses Retry-After into milliseconds from now (delay-seconds or HTTP-date); null when absent or unreadable.
 * @param value header value
 * @param nowMs current epoch ms
 */
export function retryAfterMs(value: string | undefined, nowMs: number = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/** A probe scheduler; see the module comment. One instance per process is enough. */
export class Prober {
  private readonly hosts = new Map<string, HostState>();
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly opts: ProberOptions;

  constructor(opts: ProberOptions = {}) {
    this.opts = { concurrency: 8, baseBackoffMs: 5000, maxBackoffMs: 300_000, ...opts };
  }

  /**
   * Queues one probe; it starts when its host is free (and out of backoff) and an overall slot is free.
   * @returns the probe result (also passed to onSnapshot); never rejects for provider behaviour
   * @throws TypeError when svc.url is not an absolute URL
   */
  probe(svc: ProbeTarget): Promise<ProbeResult> {
    const key = providerDomain(svc.url);
    let host = this.hosts.get(key);
    if (!host) {
      host = { tail: Promise.resolve(), notBefore: 0, strikes: 0 };
      this.hosts.set(key, host);
    }
    const state = host;
    const run = state.tail.then(() => this.runOne(svc, state));
    state.tail = run.catch(() => {});
    return run;
  }

  /** Probes every service (each host in order, hosts in parallel up to the bound) and waits for all. */
  probeAll(services: readonly ProbeTarget[]): Promise<ProbeResult[]> {
    return Promise.all(services.map((s) => this.probe(s)));
  }

  /**
   * Runs a probe round over `list()` now and then every `intervalMs` milliseconds (default hourly), never two
   * rounds at once. @returns stop(): no new round starts; the running one finishes.
   */
  every(
    list: () => Promise<readonly ProbeTarget[]> | readonly ProbeTarget[],
    intervalMs = 3_600_000,
  ): { stop(): void; idle(): Promise<void> } {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    let current: Promise<void> = Promise.resolve();
    const round = async () => {
      if (stopped) return;
      try {
        await this.probeAll(await list());
      } catch (err) {
        this.opts.onError?.(null, err);
      }
      if (!stopped) timer = setTimeout(() => (current = round()), intervalMs);
    };
    current = round();
    return {
      stop: () => {
        stopped = true;
        if (timer) clearTimeout(timer);
      },
      idle: () => current,
    };
  }

  /**
   * When the host of `url` may be contacted again (epoch ms), or null when it is not in backoff.
   * @throws TypeError when url is not an absolute URL
   */
  backoffUntil(url: string): number | null {
    const h = this.hosts.get(providerDomain(url));
    return h && h.notBefore > Date.now() ? h.notBefore : null;
  }

  private async runOne(svc: ProbeTarget, host: HostState): Promise<ProbeResult> {
    const wait = host.notBefore - Date.now();
    if (wait > 0) await sleep(wait);
    await this.acquire();
    let result: ProbeResult;
    try {
      result = await probeService(svc, this.opts);
    } finally {
      this.release();
    }
    this.noteBackoff(host, result);
    try {
      await this.opts.onSnapshot?.(svc, result);
    } catch (err) {
      this.opts.onError?.(svc, err);
    }
    return result;
  }

  private noteBackoff(host: HostState, result: ProbeResult): void {
    const status = result.snapshot.http_status;
    if (status !== 429 && status !== 503) {
      host.strikes = 0;
      return;
    }
    host.strikes++;
    const max = this.opts.maxBackoffMs!;
    const hinted = retryAfterMs(result.response?.headers['retry-after']);
    const pause = hinted ?? this.opts.baseBackoffMs! * 2 ** (host.strikes - 1);
    host.notBefore = Date.now() + Math.min(pause, max);
  }

  private acquire(): Promise<void> {
    if (this.active < this.opts.concurrency!) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

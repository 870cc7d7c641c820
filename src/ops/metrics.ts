/**
 * paywatch's Prometheus metrics (prom-client), one registry per process: the parts record into the instruments
 * below as they work (HTTP listeners, the chain collector, the RPC client, intel probes, the intake, the trust
 * check), and the metrics listener (./metrics-server.ts) serves the registry in the text exposition format.
 * Its own registry, not prom-client's global one, so a library registering metrics cannot mix into ours.
 * Names follow https://prometheus.io/docs/practices/naming/ (base units: seconds; `_total` for counters).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Store } from '../store/db.js';
import { poolUse } from '../store/db.js';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'paywatch_process_' });

/** Answered HTTP requests by listener (api, verify), method, route pattern (never the raw URL) and status. */
export const httpRequests = new Counter({
  name: 'paywatch_http_requests_total',
  help: 'Answered HTTP requests, by listener, method, route pattern and status.',
  labelNames: ['listener', 'method', 'route', 'status'] as const,
  registers: [registry],
});

/** Requests answered by replaying a remembered answer before routing (src/http/replay.ts); also counted in httpRequests. */
export const httpReplays = new Counter({
  name: 'paywatch_http_replays_total',
  help: 'Requests answered from a recorded remembered answer without routing (also counted in paywatch_http_requests_total).',
  registers: [registry],
});

/** Time from a request's arrival to its answer being sent, seconds. */
export const httpDuration = new Histogram({
  name: 'paywatch_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, seconds, by listener, method, route pattern and status.',
  labelNames: ['listener', 'method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/**
 * `gauge` with no sample until its first `set`: prom-client exports an unlabelled gauge as 0 from the start, and a
 * process without a collector (or one that has not written yet) does not know these values, so they are absent
 * rather than a 0 an alert would read as "no lag" (https://prometheus.io/docs/practices/instrumentation/#avoid-missing-metrics
 * is for labelled series that will appear; these may never).
 */
function absentUntilSet<G extends Gauge>(gauge: G): G {
  let known = false;
  const set = gauge.set.bind(gauge) as (...args: unknown[]) => void;
  const get = gauge.get.bind(gauge);
  gauge.set = ((...args: unknown[]) => {
    known = true;
    set(...args);
  }) as G['set'];
  gauge.get = (async () => {
    const m = await get();
    return known ? m : { ...m, values: [] };
  }) as G['get'];
  return gauge;
}

/** The collector's checkpoint: the height of the newest finalized block written (absent before the first write). */
export const collectorHeight = absentUntilSet(
  new Gauge({
    name: 'paywatch_collector_height',
    help: 'Block height of the newest block the collector wrote (the checkpoint).',
    registers: [registry],
  }),
);
/** The node's finalized head as the collector last read it (absent before its first poll). */
export const collectorFinalizedHead = absentUntilSet(
  new Gauge({
    name: 'paywatch_collector_finalized_head',
    help: "The node's finalized block height at the collector's last poll.",
    registers: [registry],
  }),
);
/** Unix seconds of the newest block written, for the lag gauge. */
let newestBlockTime: number | null = null;
/** Now minus the time of the newest written block, seconds (absent before the first write). */
export const collectorLag = absentUntilSet(
  new Gauge({
    name: 'paywatch_collector_lag_seconds',
    help: 'Now minus the timestamp of the newest block the collector wrote, seconds.',
    registers: [registry],
    collect() {
      if (newestBlockTime !== null) this.set(Math.max(0, Date.now() / 1000 - newestBlockTime));
    },
  }),
);
export const blocksIngested = new Counter({
  name: 'paywatch_collector_blocks_total',
  help: 'Finalized blocks the collector wrote.',
  registers: [registry],
});
export const transactionsIngested = new Counter({
  name: 'paywatch_collector_transactions_total',
  help: 'Transactions (observations) the collector wrote.',
  registers: [registry],
});
/** The collector's state, 1 for the current one (starting, catching_up, running, stalled, error, stopped). */
export const collectorState = new Gauge({
  name: 'paywatch_collector_state',
  help: 'The collector state: 1 for the current one.',
  labelNames: ['state'] as const,
  registers: [registry],
});

/**
 * Records a collector write.
 * @param height the checkpoint's block height after the write
 * @param blockTime the newest written block's timestamp, Unix seconds (null when unknown)
 */
export function recordWrite(height: number, blocks: number, transactions: number, blockTime: number | null): void {
  collectorHeight.set(height);
  blocksIngested.inc(blocks);
  transactionsIngested.inc(transactions);
  if (blockTime !== null) newestBlockTime = blockTime;
}

/** Finalization certificates checked by the collector, by outcome (verified, failed, unknown). */
export const finalityChecks = new Counter({
  name: 'paywatch_finality_checks_total',
  help: 'Finalization certificates checked by the collector, by status (verified, failed, unknown).',
  labelNames: ['status'] as const,
  registers: [registry],
});

/** CPU time of one certificate verification (decode, pairing checks), seconds. */
export const finalityVerifySeconds = new Histogram({
  name: 'paywatch_finality_verify_seconds',
  help: 'Time to verify one finalization certificate, seconds.',
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  registers: [registry],
});

/** Witnesses that reported another block hash for a height they call finalized: an alarm. */
export const witnessDisagreements = new Counter({
  name: 'paywatch_witness_disagreements_total',
  help: 'Witness answers reporting another block hash for a height they call finalized (alarm: a lying witness or a fork).',
  registers: [registry],
});

/** Highest block covered by a verified finalization certificate. */
export const finalityVerifiedHeight = new Gauge({
  name: 'paywatch_finality_verified_height',
  help: 'Highest block height covered by a verified finalization certificate.',
  registers: [registry],
});

/** Records the collector's state (one gauge series set to 1, the others to 0). */
export function recordCollectorState(state: string): void {
  for (const s of ['starting', 'standby', 'catching_up', 'running', 'stalled', 'error', 'stopped'])
    collectorState.set({ state: s }, s === state ? 1 : 0);
}

export const rpcErrors = new Counter({
  name: 'paywatch_rpc_errors_total',
  help: 'Failed JSON-RPC attempts (transport, timeout, HTTP or per-call errors).',
  registers: [registry],
});
export const rpcRetries = new Counter({
  name: 'paywatch_rpc_retries_total',
  help: 'JSON-RPC attempts retried after a failure.',
  registers: [registry],
});
export const rpcRequests = new Counter({
  name: 'paywatch_rpc_requests_total',
  help: 'JSON-RPC HTTP requests sent (each holding a batch of calls).',
  registers: [registry],
});
export const rpcRefused = new Counter({
  name: 'paywatch_rpc_refused_total',
  help: 'JSON-RPC HTTP requests the node refused with 429 (rate limit).',
  registers: [registry],
});
export const rpcBatchTooLarge = new Counter({
  name: 'paywatch_rpc_batch_too_large_total',
  help: 'JSON-RPC batches the node refused as too large (each halves the calls per request).',
  registers: [registry],
});
export const rpcBatchCalls = new Gauge({
  name: 'paywatch_rpc_batch_calls',
  help: 'JSON-RPC calls per HTTP request in use, after the node refused larger batches (set once it did).',
  registers: [registry],
});
export const rpcRate = new Gauge({
  name: 'paywatch_rpc_rate_per_second',
  help: 'HTTP requests per second the JSON-RPC client paces itself to after the node answered 429 (set once it did).',
  registers: [registry],
});

export const probeOutcomes = new Counter({
  name: 'paywatch_intel_probes_total',
  help: 'Intel probes of paid services, by outcome.',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const intakeDeliveries = new Counter({
  name: 'paywatch_intake_deliveries_total',
  help: 'Signed intake deliveries, by route and result (created, duplicate, or the HTTP status of a refusal).',
  labelNames: ['route', 'result'] as const,
  registers: [registry],
});

export const trustChecks = new Counter({
  name: 'paywatch_trust_checks_total',
  help: 'Completed trust checks, by verdict and access (key or x402).',
  labelNames: ['verdict', 'access'] as const,
  registers: [registry],
});

/**
 * Adds gauges of `store`'s connection use: PostgreSQL pool connections (total, idle, waiting) or, on SQLite,
 * heavy reads waiting or running on the reader threads. Call once per process for its main store.
 */
export function watchStore(store: Store): void {
  if (registry.getSingleMetric('paywatch_store_pool_connections')) registry.removeSingleMetric('paywatch_store_pool_connections');
  if (registry.getSingleMetric('paywatch_store_heavy_reads')) registry.removeSingleMetric('paywatch_store_heavy_reads');
  new Gauge({
    name: 'paywatch_store_pool_connections',
    help: 'PostgreSQL pool connections by kind (total, idle, waiting for a connection).',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      const use = poolUse(store);
      if (!use) return;
      this.set({ kind: 'total' }, use.total);
      this.set({ kind: 'idle' }, use.idle);
      this.set({ kind: 'waiting' }, use.waiting);
    },
  });
  new Gauge({
    name: 'paywatch_store_heavy_reads',
    help: 'Heavy chain reads (metrics, counts, export steps) waiting or running on the SQLite reader threads.',
    registers: [registry],
    collect() {
      this.set(store.readers?.busy ?? 0);
    },
  });
}

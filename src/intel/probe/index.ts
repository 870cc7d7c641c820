/** Probing: one unpaid snapshot of a service (probeService) and the polite scheduler (Prober). */
export { probeService, outcomeForStatus, type ProbeTarget, type ProbeOptions, type ProbeResult } from './probe-service.js';
export { Prober, retryAfterMs, type ProberOptions } from './prober.js';
export { uuidv7 } from './snapshot-id.js';

/**
 * The intel area's repository: the only place with SQL for providers, services, sources, snapshots, evidence,
 * offers and changes. Writes are in ./write.ts, reads (rows, no answer shapes) in ./reads.ts; the
 * answers are built in src/intel/queries.ts.
 */
export * from './write.js';
export * from './reads.js';
export { GOOD_OUTCOMES, isoTime, type StoredChange, type StoredOffer } from './rows.js';

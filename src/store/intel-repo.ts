/**
 * The intel area's repository: the only place with SQL for providers, services, sources, snapshots, evidence,
 * offers and changes. Writes are in ./intel/write.ts, reads (one function per endpoint, shared by the HTTP routes
 * and the MCP tools) in ./intel/queries.ts, shapes in ./intel/params.ts.
 */
export * from './intel/write.js';
export * from './intel/queries.js';
export * from './intel/params.js';
export { GOOD_OUTCOMES, isoTime, type StoredChange, type StoredOffer } from './intel/rows.js';

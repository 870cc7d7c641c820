/**
 * The chain area's repository: the only functions the collector, the routes, the MCP tools and the seeder
 * call to write and read observations, coverage, the checkpoint and the collector's state.
 * Queries live in the modules beside it (./query.ts, ./series.ts, ./coverage.ts, ./write.ts); the operations the
 * callers need are composed in ./checkpoint.ts (writes, checkpoint, collector state, status), ./reads.ts (pages,
 * details, metrics, series), ./export.ts (export rows) and ./reader-tasks.ts (what a reader thread runs).
 */
export type { ExportRow, Metrics, MetricsSeries, SeriesBucket, TransactionPage } from './answers.js';
export { VALUE_METHOD } from './answers.js';
export { SERIES_BUCKET_SECONDS, SERIES_MAX_BUCKETS, seriesBucketCount, type SeriesRequest } from './series.js';
export type { HeightInterval } from './coverage.js';
export type { TransactionRow, TransactionDetailRow, PreparedBlock, SerializedObservation } from './rows.js';
export { prepareBlock } from './rows.js';
export {
  getCheckpoint,
  getCollectorState,
  getCoverage,
  getStatus,
  saveCollectorState,
  writeBlocks,
  writePreparedBlocks,
  type Checkpoint,
  type CollectorState,
  type StoreStatus,
} from './checkpoint.js';
export { aggregateMetrics, computeMetrics, computeSeries, getTransaction, listTransactions } from './reads.js';
export { EXPORT_CAP, exportRows, exportStep } from './export.js';
export { runReaderTask } from './reader-tasks.js';
export {
  countQuarantined,
  readQuarantined,
  recordBlockFailure,
  releaseQuarantined,
  type QuarantinedBlock,
} from './quarantine.js';
export { currentStats } from './query.js';
export { readRetention, type RetentionState } from './retention.js';
export {
  blockRange,
  checkStatusAt,
  COVER_MAX_BLOCKS,
  type FinalityRecord,
  type FinalityState,
  readBlocks,
  readFinalityState,
  recordFinality,
  saveKeyChain,
  type StoredBlock,
} from './finality.js';

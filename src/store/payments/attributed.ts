/**
 * The one place told about every (re)attribution of stored rows: the writer at collection
 * (../chain/write.ts insertObservations) and the attribution pass (./reattribute.ts) call it inside the
 * transaction that wrote the rows' attribution columns, so aggregates kept beside the rows (per-day payment
 * rollups by recipient, service and payer) can follow in the same transaction. A no-op until such aggregates exist.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../schema.js';

/**
 * Called after the attribution columns (service_id, provider, attribution_method, attribution_ambiguous, and a
 * protocol set to "x402") of `hashes` were written, before their transaction commits.
 * @param trx the open transaction
 * @param hashes lower-case transaction hashes, each once; never empty
 * @throws whatever the aggregates' writes throw (the transaction is then rolled back with the rows)
 */
export async function onAttributed(trx: Transaction<Database>, hashes: readonly string[]): Promise<void> {
  void trx;
  void hashes;
}

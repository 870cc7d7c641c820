/**
 * The partial indexes of `observations` (migration chain_0012_compact_payments): an index that would hold an entry
 * for every row although its filter picks few (failed executions, known venues, payers other than the sender)
 * holds only those rows. The migration creates them and the filters repeat their predicates here, from one place:
 * SQLite uses a partial index only when the query's WHERE contains the index's predicate term for term.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';

/** Rows whose execution is not `success` (failed or unknown): the execution indexes hold only these. */
export const UNSUCCESSFUL = "execution <> 'success'";

/** Rows whose payer is not their sender (an x402 facilitator's settlement, a sponsored payment): the payer index. */
export const PAYER_APART = '(sender is null or payer <> sender)';

/** Rows with a known venue: the exchange index (`exchange = v` implies it on both dialects: no term in the filters). */
export const KNOWN_EXCHANGE = 'exchange is not null';

/** A partial index of observations: its name, key columns before (time, hash desc), and predicate. */
export interface PartialIndex {
  name: string;
  columns: readonly string[];
  where: string;
}

/**
 * The partial sorted indexes (columns, then time and hash desc: the public order scanned backwards). A change here
 * is a new migration: chain_0012 built them from this list.
 */
export const PARTIAL_INDEXES: readonly PartialIndex[] = [
  { name: 'observations_payer_time_asc', columns: ['payer'], where: `payer is not null and ${PAYER_APART}` },
  { name: 'observations_execution_time_asc', columns: ['execution'], where: UNSUCCESSFUL },
  { name: 'observations_exchange_time_asc', columns: ['exchange'], where: KNOWN_EXCHANGE },
  { name: 'observations_asset_contract_execution_time_asc', columns: ['asset_contract', 'execution'], where: UNSUCCESSFUL },
];

/** A predicate above as a WHERE term. */
export function term(predicate: string): RawBuilder<SqlBool> {
  return sql.raw<SqlBool>(predicate);
}

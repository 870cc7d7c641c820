/**
 * Each address's first observed inflow of each token (table `first_fundings`, migration chain_0018_first_funding),
 * kept by the collector in the same transaction as the observations it writes, and the rule the `exclude=self_funded`
 * filter applies with it (docs/api-chain.md, "Excluding self-payments and self-funded payments").
 *
 * An inflow is a successful observation whose primary leg's payer (the `payer` column) differs from its recipient and
 * whose nominal part in a token is above zero; per (recipient, token contract) the first one by (block height,
 * tx_index) wins, whatever order blocks are written or backfilled in. Which tokens count is decided when read (the
 * token list of the answer, like `nominal`), so the table keeps every token. The trust check's funding links use the
 * same one-hop rule over a window (src/trust/payers.ts); this table is over everything observed.
 */
import { sql, type Kysely, type RawBuilder, type SqlBool, type Transaction } from 'kysely';
import { type BulkShape, marks, runBulk } from './bulk-sql.js';
import type { Database } from '../schema.js';
import { parseNominalParts } from './rows.js';

/** Columns of observations an inflow is read from. */
export const FUNDING_COLUMNS = ['height', 'tx_index', 'time', 'hash', 'execution', 'payer', 'recipient', 'nominal_parts'] as const;

/** What one observation contributes: its stored members (observations row columns). */
export interface FundingSource {
  height: number | string;
  tx_index: number | string;
  /** Block time, UTC Unix seconds. */
  time: number | string;
  hash: string;
  execution: string;
  payer: string | null;
  recipient: string | null;
  /** Stored NominalParts JSON text ([[contract, amount], …]) or null. */
  nominal_parts: string | null;
}

/** One first_fundings row. */
export interface FundingRow {
  address: string;
  contract: string;
  funder: string;
  height: number;
  tx_index: number;
  time: number;
  hash: string;
}

/** Observations read per step of fillFirstFundings. */
const FILL_STEP = 2_000;

const ZERO = /^-?0*(\.0*)?$/;

/** The earliest inflow per (address, contract) among `sources` (see the module's rule). */
export function fundingRowsOf(sources: Iterable<FundingSource>): FundingRow[] {
  const out = new Map<string, FundingRow>();
  for (const o of sources) {
    if (o.execution !== 'success' || !o.payer || !o.recipient) continue;
    const funder = o.payer.toLowerCase();
    const address = o.recipient.toLowerCase();
    if (funder === address) continue;
    for (const p of parseNominalParts(o.nominal_parts) ?? []) {
      if (!p.asset_contract || ZERO.test(p.amount)) continue;
      const row: FundingRow = {
        address,
        contract: p.asset_contract.toLowerCase(),
        funder,
        height: Number(o.height),
        tx_index: Number(o.tx_index),
        time: Number(o.time),
        hash: o.hash,
      };
      const k = `${address}|${row.contract}`;
      const held = out.get(k);
      if (!held || row.height < held.height || (row.height === held.height && row.tx_index < held.tx_index)) out.set(k, row);
    }
  }
  return [...out.values()];
}

const RECORD: BulkShape = {
  head: 'insert into first_fundings (address, contract, funder, height, tx_index, time, hash) values ',
  row: marks(7),
  sep: ', ',
  tail: ` on conflict (address, contract) do update set funder = excluded.funder, height = excluded.height,
      tx_index = excluded.tx_index, time = excluded.time, hash = excluded.hash
      where excluded.height < first_fundings.height
        or (excluded.height = first_fundings.height and excluded.tx_index < first_fundings.tx_index)`,
};

/**
 * Records the inflows of `sources` inside the caller's transaction: a row replaces the stored one only when it comes
 * earlier by (height, tx_index), so re-writing or backfilling older blocks is idempotent and order-independent.
 */
export async function recordFirstFundings(db: Transaction<Database> | Kysely<Database>, sources: Iterable<FundingSource>): Promise<void> {
  await runBulk(
    db,
    RECORD,
    fundingRowsOf(sources).map((r) => [r.address, r.contract, r.funder, r.height, r.tx_index, r.time, r.hash]),
  );
}

/** Fills first_fundings from every stored observation with a payer, FILL_STEP rows per step in seq order. */
export async function fillFirstFundings(db: Kysely<Database>): Promise<void> {
  for (let after = -1; ; ) {
    const rows = await db
      .selectFrom('observations')
      .select(['seq', ...FUNDING_COLUMNS])
      .where('seq', '>', after)
      .where('payer', 'is not', null)
      .where('execution', '=', 'success')
      .orderBy('seq')
      .limit(FILL_STEP)
      .execute();
    if (!rows.length) break;
    await recordFirstFundings(db, rows);
    after = Number(rows[rows.length - 1].seq);
  }
}

/**
 * True when `row` (an alias of first_fundings) is its address's first listed inflow: no row of the same address in a
 * `listed` contract comes earlier by (height, tx_index, funder). An anti-join on the primary key, no sort.
 */
function firstListed(row: string, listed: readonly string[]): RawBuilder<SqlBool> {
  const r = (c: string) => sql.ref(`${row}.${c}`);
  return sql<SqlBool>`not exists (select 1 from first_fundings e where e.address = ${r('address')}
    and e.contract in (${sql.join(listed)}) and (e.height < ${r('height')} or (e.height = ${r('height')}
    and (e.tx_index < ${r('tx_index')} or (e.tx_index = ${r('tx_index')} and e.funder < ${r('funder')})))))`;
}

/**
 * True for a payment from `payer` to `recipient` (column references) that is self-funded: the payer's first observed
 * listed-token inflow came from the recipient, or from the recipient's own first funder (one hop, the trust check's
 * `pay_to` and `pay_to_funder` links); a self-payment is not. False when either is unknown (no payer, no recorded inflow, nothing listed):
 * an unknown is never excluded.
 *
 * One EXISTS over first_fundings' primary key (address, contract), with no sort and no scalar subquery: PostgreSQL
 * turns `not (selfFunded(…))` into an anti-join planned once for all rows, SQLite probes the key once per listed
 * contract (a payer without a recorded listed inflow costs only those probes). Rule and plans: docs/decisions.md.
 */
export function selfFunded(payer: RawBuilder<unknown>, recipient: RawBuilder<unknown>, listed: readonly string[]): RawBuilder<SqlBool> {
  if (!listed.length) return sql<SqlBool>`1 = 0`;
  // A self-payment shares its own funder: it is what exclude=self_payment is for, never counted self-funded here.
  return sql<SqlBool>`exists (select 1 from first_fundings fp where fp.address = ${payer} and fp.contract in (${sql.join(listed)})
    and ${payer} <> ${recipient}
    and (fp.funder = ${recipient} or exists (select 1 from first_fundings fr where fr.address = ${recipient}
      and fr.contract in (${sql.join(listed)}) and fr.funder = fp.funder and ${firstListed('fr', listed)}))
    and ${firstListed('fp', listed)})`;
}

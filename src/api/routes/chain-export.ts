/**
 * The CSV body of /api/export: a header row, exact decimal strings, unit columns, empty cells for null.
 * Streams: rows are pulled from the store's keyset scan as the client reads.
 */
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { TransactionRow } from '../../store/chain-repo.js';

/** Export columns, in order. `*_unit` columns say what a number counts (contract: "a column stating units"). */
export const EXPORT_COLUMNS = [
  'hash', 'time', 'time_iso', 'height', 'chain_id', 'sender', 'recipient', 'asset', 'asset_contract',
  'amount', 'amount_unit', 'nominal', 'nominal_unit', 'fee', 'fee_unit',
  'exchange', 'protocol', 'category', 'execution', 'decode', 'integrity_score', 'integrity_maximum',
] as const;

/** One CSV record for a row; null becomes undefined (csv-stringify writes an empty cell). */
export function exportRecord(r: TransactionRow): Record<(typeof EXPORT_COLUMNS)[number], string | number | undefined> {
  const v = <T>(x: T | null) => (x === null ? undefined : x);
  return {
    hash: r.hash,
    time: r.time,
    time_iso: new Date(r.time * 1000).toISOString(),
    height: r.height,
    chain_id: r.chain_id,
    sender: v(r.sender),
    recipient: v(r.recipient),
    asset: v(r.asset),
    asset_contract: v(r.asset_contract),
    amount: v(r.amount),
    amount_unit: r.amount === null ? undefined : (r.asset ?? r.asset_contract ?? undefined),
    nominal: v(r.nominal),
    nominal_unit: r.nominal === null ? undefined : 'USD',
    fee: v(r.fee),
    fee_unit: r.fee === null ? undefined : 'fee token',
    exchange: v(r.exchange),
    protocol: v(r.protocol),
    category: v(r.category),
    execution: r.execution,
    decode: r.decode,
    integrity_score: r.integrity.score,
    integrity_maximum: r.integrity.maximum,
  };
}

/**
 * Starts a CSV stream over `rows`. Awaits the first row first, so an error reading the store is thrown here
 * (and answered as JSON) rather than after the 200 status line was sent.
 */
export async function csvExport(rows: AsyncIterator<TransactionRow> & AsyncIterable<TransactionRow>): Promise<Readable> {
  const first = await rows.next();
  async function* records() {
    if (first.done) return;
    yield exportRecord(first.value);
    for await (const r of rows) yield exportRecord(r);
  }
  return Readable.from(records()).pipe(stringify({ header: true, columns: [...EXPORT_COLUMNS] }));
}

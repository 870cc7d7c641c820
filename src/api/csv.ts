/**
 * The CSV of /api/export as pure functions: its columns, one record per row, and RFC 4180 lines with formula cells
 * neutralised. No I/O; the stream that sends them is in ./routes/chain-export.ts.
 */
import type { ExportRow } from '../store/chain/index.js';

/** Export columns, in order. `*_unit` columns say what a number counts (contract: "a column stating units"). */
export const EXPORT_COLUMNS = [
  'hash',
  'time',
  'time_iso',
  'height',
  'chain_id',
  'sender',
  'recipient',
  'asset',
  'asset_contract',
  'asset_listed',
  'amount',
  'amount_unit',
  'nominal',
  'nominal_unit',
  'fee',
  'fee_unit',
  'exchange',
  'protocol',
  'category',
  'execution',
  'decode',
  'integrity_score',
  'integrity_maximum',
  // Added after the columns above, so a reader of the earlier export finds them where they were.
  'payer',
  'self_payment',
  'client_fingerprint',
  'service_id',
  'provider',
  'attribution_method',
] as const;

/** One CSV record for a row, by column; null becomes undefined (an empty cell). */
export function exportRecord(r: ExportRow): Record<(typeof EXPORT_COLUMNS)[number], string | number | undefined> {
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
    asset_listed: r.asset_listed === null ? undefined : String(r.asset_listed),
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
    payer: v(r.payer),
    self_payment: r.self_payment === null ? undefined : String(r.self_payment),
    client_fingerprint: v(r.client_fingerprint),
    service_id: v(r.service_id),
    provider: v(r.provider),
    attribution_method: v(r.attribution_method),
  };
}

/** A cell needs quotes when it holds a field or record separator or a quote (RFC 4180). */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * A cell a spreadsheet would read as a formula: one starting with `=` `+` `-` `@` tab or CR (OWASP, "CSV Injection",
 * https://owasp.org/www-community/attacks/CSV_Injection), or with the full-width `＝` `＋` `－` `＠` that Apple
 * Numbers reads as their ASCII forms (csv-stringify's `escape_formulas` list, lib/api/index.js).
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * One CSV line (with its `\n`), byte for byte what csv-stringify writes with `{escape_formulas: true}`: numbers in
 * their shortest decimal form, undefined as an empty cell, a cell that could start a formula prefixed with `'`
 * (nothing dropped), then a cell holding `,` `"` CR or LF quoted with inner quotes doubled. One deliberate
 * difference: a negative number is prefixed too (csv-stringify leaves numbers starting with `-` alone; the rule
 * here is every cell, docs/decisions.md "CSV formula cells"); test/api/chain-export.test.ts checks the equality on
 * random cells. Written here because csv-stringify allocates about 12 kB of short-lived objects per 330-byte export
 * line; under concurrent exports that garbage forced young collections so often that every in-flight row was
 * promoted to the old generation.
 */
export function csvLine(cells: readonly (string | number | undefined)[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    const v = cells[i];
    let s = v === undefined ? '' : typeof v === 'number' ? String(v) : v;
    if (FORMULA_START.test(s)) s = `'${s}`;
    line += (i ? ',' : '') + (NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s);
  }
  return `${line}\n`;
}

/** The header row. */
export const HEADER = csvLine(EXPORT_COLUMNS);

/** CSV text of `rows` (no header). */
export function csvRows(rows: readonly ExportRow[]): string {
  let text = '';
  for (const r of rows) {
    const rec = exportRecord(r);
    text += csvLine(EXPORT_COLUMNS.map((c) => rec[c]));
  }
  return text;
}

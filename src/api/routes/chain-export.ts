/**
 * The CSV body of /api/export: a header row, exact decimal strings, unit columns, empty cells for null.
 * Streams with bounded memory: each keyset step of rows (500) is turned into CSV bytes at once and dropped, and
 * the next step is read from the store only when the client has taken the previous bytes. Why it is built this
 * way (an export once grew the server's memory by 100-200 MB): docs/decisions.md, "CSV export memory".
 */
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { Unavailable } from '../../domain/errors.js';
import { LIMITS } from '../../limits/index.js';
import type { ExportRow } from '../../store/chain/index.js';

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
const HEADER = csvLine(EXPORT_COLUMNS);

/** CSV text of `rows` (no header). */
export function csvRows(rows: readonly ExportRow[]): string {
  let text = '';
  for (const r of rows) {
    const rec = exportRecord(r);
    text += csvLine(EXPORT_COLUMNS.map((c) => rec[c]));
  }
  return text;
}

/**
 * Starts a CSV stream over `batches` (arrays of rows, newest first). Awaits the first batch first, so an error
 * reading the store is thrown here (and answered as JSON) rather than after the 200 status line was sent.
 * Each batch becomes CSV bytes at once (Buffers, outside the JS heap, in pieces of 100 rows: text under the
 * 128 kB from which V8 places a string in the old generation) and its rows are dropped whatever the client's
 * pace; the next batch is read only once the previous bytes have left the stream's buffer (highWaterMark of one
 * byte). Batches are handled inside plain functions, never held across a `yield` by a generator frame.
 */
export async function csvExport(batches: AsyncIterator<ExportRow[]>): Promise<Readable> {
  const encode = (rows: readonly ExportRow[]): Buffer[] => {
    const out: Buffer[] = [];
    for (let i = 0; i < rows.length; i += 100) out.push(Buffer.from(csvRows(rows.slice(i, i + 100))));
    return out;
  };
  const head = async (): Promise<Buffer[]> => {
    const r = await batches.next();
    return [Buffer.from(HEADER), ...(r.done ? [] : encode(r.value))];
  };
  const following = async (): Promise<Buffer[] | null> => {
    const r = await batches.next();
    return r.done ? null : encode(r.value);
  };
  async function* chunks(bytes: Buffer[] | null): AsyncGenerator<Buffer> {
    while (bytes) {
      yield* bytes;
      bytes = await following();
    }
  }
  return Readable.from(chunks(await head()), { objectMode: false, highWaterMark: 1 });
}

/**
 * Aborts an export whose client stopped reading: when for `idleMs` the client has taken no bytes while some wait
 * to be sent, its connection is reset and `res` destroyed, which destroys the CSV stream piped into it (Fastify's
 * sendStream) and so frees its slot. Built on the socket's inactivity timeout (`response.setTimeout`), which Node
 * re-arms on every read, every write and every partial progress of a pending write (lib/net.js `_onTimeout`), so
 * only a client whose TCP window stayed shut the whole time is cut; an export waiting for its store (nothing
 * waiting to be sent) is not. The socket's usual timeout comes back with its next request (lib/_http_server.js).
 * @param idleMs milliseconds without a byte taken
 * @param onAbort called once when the export is aborted (logging)
 */
export function abortWhenStalled(res: ServerResponse, idleMs: number, onAbort: () => void): void {
  res.setTimeout(idleMs, () => {
    const waiting = (res.socket?.writableLength ?? 0) > 0 || res.writableNeedDrain;
    if (!waiting || res.destroyed) return;
    onAbort();
    // A reset, not a close: the kernel drops the bytes the client never took instead of trying to deliver them.
    res.socket?.resetAndDestroy();
    res.destroy();
  });
}

/**
 * Exports one server runs at once. Each holds about one keyset step (a few hundred kB); past about six at once on
 * PostgreSQL, rows arriving for many interleaved queries outlive young collections and the heap grows again
 * (measured: 6 at once +30 MB, 8 at once +96 MB; bench/api.ts measures 2).
 */
export const EXPORTS_AT_ONCE: number = LIMITS.exportsAtOnce.value;

/** Seconds a refused export is told to wait (Retry-After); an export of 10,000 rows takes well under a second. */
export const EXPORT_RETRY_AFTER_S = LIMITS.exportsAtOnce.answer.retryAfter;

/** The running exports of one app, at most `limit` at once. */
export class ExportSlots {
  #running = 0;

  constructor(readonly limit = EXPORTS_AT_ONCE) {}

  /** Exports running now. */
  get running(): number {
    return this.#running;
  }

  /**
   * Takes a slot and returns its release function (calling it more than once releases once).
   * @throws Unavailable (503, Retry-After EXPORT_RETRY_AFTER_S) when `limit` exports are running
   */
  take(): () => void {
    if (this.#running >= this.limit) {
      throw new Unavailable(`too many exports in progress: at most ${this.limit} run at once; retry after ${EXPORT_RETRY_AFTER_S} s`, {
        retryAfterSeconds: EXPORT_RETRY_AFTER_S,
      });
    }
    this.#running++;
    let held = true;
    return () => {
      if (held) {
        held = false;
        this.#running--;
      }
    };
  }
}

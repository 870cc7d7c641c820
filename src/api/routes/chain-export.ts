/**
 * The CSV body of /api/export: a header row, exact decimal strings, unit columns, empty cells for null.
 * Streams with bounded memory: each keyset step of rows (500) is turned into CSV bytes at once and dropped, and
 * the next step is read from the store only when the client has taken the previous bytes. Why it is built this
 * way (an export once grew the server's memory by 100-200 MB): docs/decisions.md, "CSV export memory".
 */
import { Readable } from 'node:stream';
import { Unavailable } from '../../domain/errors.js';
import { LIMITS } from '../../limits/index.js';
import type { ExportRow } from '../../store/chain/index.js';
import { csvRows, HEADER } from '../csv.js';

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

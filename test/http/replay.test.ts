/**
 * Remembered answers replayed before routing (src/http/replay.ts), over real HTTP (inject goes around the server, so
 * around the replay): a replay sends what the route sent, keeps the per-request parts (request id, rate limit),
 * never outlives the store version it was recorded at, and leaves conditional and cross-origin requests to the route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpReplays } from '../../src/ops/metrics.js';
import { REPLAY_URL_MAX } from '../../src/http/replay.js';
import { MAX_URL_LENGTH } from '../../src/http/errors.js';
import { negotiateEncoding } from '../../src/http/compression.js';
import { writeBlocks } from '../../src/store/chain/index.js';
import { makeBlocks } from '../helpers/observations.js';
import { apiFixture, type ApiFixture } from '../api/helpers.js';
import { DIALECTS } from '../helpers/db.js';

const blocks = makeBlocks({ count: 300, seed: 7 });
const first = blocks.slice(0, Math.floor(blocks.length * 0.75));
const later = blocks.slice(first.length);

/** Requests replayed so far in this process. */
async function replays(): Promise<number> {
  return (await httpReplays.get()).values[0]?.value ?? 0;
}

/** Headers that differ between two answers of one URL by design: per request, or per connection. */
const PER_REQUEST = new Set(['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'keep-alive', 'connection']);

function stable(h: Headers): Record<string, string> {
  return Object.fromEntries([...h].filter(([k]) => !PER_REQUEST.has(k)));
}

interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
  replayed: boolean;
}

async function listening(f: ApiFixture): Promise<string> {
  await f.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(f.app.server.address() as { port: number }).port}`;
}

describe.each(DIALECTS)('replayed remembered answers (%s)', (dialect) => {
  let f: ApiFixture;
  let base: string;
  beforeAll(async () => {
    f = await apiFixture(dialect, first);
    base = await listening(f);
  });
  afterAll(() => f.close());

  /** GET `path`; `replayed` tells whether the replay answered it (the process's replay counter moved). */
  async function get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
    const before = await replays();
    // `identity` unless asked: fetch would otherwise ask for gzip and decode it.
    const res = await fetch(base + path, { headers: { 'accept-encoding': 'identity', ...headers } });
    const body = Buffer.from(await res.arrayBuffer());
    return { status: res.status, headers: res.headers, body, replayed: (await replays()) > before };
  }

  /**
   * The route's answer and then a replay of it: asks until an answer is replayed, and returns it with the routed one
   * before it. The route records an answer only when the store's version is known without a read (for 250 ms after
   * one), so the first request after a pause is routed and not recorded, the second recorded, the third replayed.
   */
  async function routedThenReplayed(path: string, headers: Record<string, string> = {}): Promise<[Answer, Answer]> {
    let routed = await get(path, headers);
    const seen: string[] = [];
    for (let i = 0; i < 10; i++) {
      const next = await get(path, headers);
      if (next.replayed && !routed.replayed) return [routed, next];
      seen.push(`${next.status} ${next.replayed} ${next.headers.get('content-encoding')} ${next.body.length}`);
      routed = next;
    }
    throw new Error(`${path} was never replayed: ${seen.join('; ')}`);
  }

  const since = first[0]!.time - 86_400;
  // One URL per case, so each starts unrecorded (an answer under 1 kB has one recording for every encoding).
  const cases = [
    { route: '/api/transactions', path: (i: number) => `/api/transactions?limit=${10 + i}` },
    { route: '/api/transactions/:hash', path: (i: number) => `/api/transactions/${first[10 + i]!.observations[0]!.hash}` },
    { route: '/api/rankings/recipients', path: (i: number) => `/api/rankings/recipients?by=payments&since=${since}&limit=${10 + i}` },
  ];

  for (const { route, path } of cases) {
    ['identity', 'gzip', 'br'].forEach((encoding, i) => {
      it(`${route} (${encoding}): the replay sends the route's status, headers and bytes`, async () => {
        const [routed, replayed] = await routedThenReplayed(path(i), { 'accept-encoding': encoding });
        expect(routed.status).toBe(200);
        expect(replayed.status).toBe(200);
        expect(stable(replayed.headers)).toEqual(stable(routed.headers));
        expect(replayed.body.equals(routed.body)).toBe(true);
        if (encoding !== 'identity' && routed.body.length > 1024) expect(replayed.headers.get('content-encoding')).toBe(encoding);
        expect(replayed.headers.get('x-request-id')).not.toBe(routed.headers.get('x-request-id'));
      });
    });
  }

  it("echoes a client's sane X-Request-Id and counts the replay in the rate limit", async () => {
    const [routed, replayed] = await routedThenReplayed('/api/transactions?limit=3', { 'x-request-id': 'client-42' });
    expect(replayed.headers.get('x-request-id')).toBe('client-42');
    expect(Number(replayed.headers.get('x-ratelimit-remaining'))).toBe(Number(routed.headers.get('x-ratelimit-remaining')) - 1);
    expect(replayed.headers.get('x-ratelimit-limit')).toBe(routed.headers.get('x-ratelimit-limit'));
  });

  it('leaves If-None-Match and Origin to the route: 304, and CORS decided there', async () => {
    const [routed] = await routedThenReplayed('/api/transactions?limit=4');
    const conditional = await get('/api/transactions?limit=4', { 'if-none-match': routed.headers.get('etag')! });
    expect(conditional.status).toBe(304);
    expect(conditional.replayed).toBe(false);
    const crossOrigin = await get('/api/transactions?limit=4', { origin: 'https://example.org' });
    expect(crossOrigin.status).toBe(200);
    expect(crossOrigin.replayed).toBe(false);
    expect(crossOrigin.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('never replays across a store write: the next answer is the new one', async () => {
    const path = '/api/transactions?limit=2';
    const [, replayed] = await routedThenReplayed(path);
    const before = JSON.parse(replayed.body.toString()) as { total: number };
    await writeBlocks(f.store, later, { height: later.at(-1)!.height, hash: later.at(-1)!.hash });
    const after = await get(path);
    expect(after.replayed).toBe(false);
    expect((JSON.parse(after.body.toString()) as { total: number }).total).toBeGreaterThan(before.total);
    expect(after.headers.get('etag')).not.toBe(replayed.headers.get('etag'));
  });

  it("never records a URL past REPLAY_URL_MAX, and answers a 414 past the listener's URL bound", async () => {
    // A valid query made long: every filter at its longest, each character percent-encoded (matches nothing).
    const enc = (t: string) => [...t].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
    const long = `/api/transactions?limit=7&q=${enc('a'.repeat(140))}&exchange=${enc('b'.repeat(140))}&provider=${enc(`${'c'.repeat(250)}.example`)}&service_id=${enc('d'.repeat(64))}&payer=${enc(`0x${'1'.repeat(40)}`)}&recipient=${enc(`0x${'2'.repeat(40)}`)}`;
    expect(long.length).toBeGreaterThan(REPLAY_URL_MAX);
    const answers = [await get(long), await get(long), await get(long)];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers.some((a) => a.replayed)).toBe(false);
    expect((JSON.parse(answers[2]!.body.toString()) as { rows: unknown[] }).rows).toEqual([]);
    const tooLong = await get(`/api/transactions?limit=7&q=${'a'.repeat(MAX_URL_LENGTH)}`);
    expect(tooLong.status).toBe(414);
    expect(JSON.parse(tooLong.body.toString()).error).toMatch(/URL too long/);
  });

  it('answers each of many distinct Accept-Encoding values as the route would', async () => {
    const path = '/api/transactions?limit=40';
    await routedThenReplayed(path);
    // More distinct headers than the replay remembers negotiations for (64), each asked twice.
    for (let i = 0; i < 80; i++) {
      const accept = i % 2 ? `gzip;q=0.${(i % 9) + 1}, br;q=0.${i % 7}, x-${i}` : `identity, x-${i};q=0.5`;
      for (const _ of [1, 2]) {
        const a = await get(path, { 'accept-encoding': accept });
        expect(a.status).toBe(200);
        // The encoding the route negotiates for this header (src/http/reply.ts).
        expect(a.headers.get('content-encoding')).toBe(negotiateEncoding(accept));
      }
    }
  });

  it('leaves other methods and unrecorded answers to the route', async () => {
    await routedThenReplayed('/api/transactions?limit=6');
    const head = await fetch(`${base}/api/transactions?limit=6`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const error = await get('/api/transactions?limit=0');
    const again = await get('/api/transactions?limit=0');
    expect([error.status, again.status]).toEqual([400, 400]);
    expect(again.replayed).toBe(false);
    expect(JSON.parse(again.body.toString()).error).toMatch(/limit/);
  });
});

describe('replayed answers under the rate limit', () => {
  let f: ApiFixture;
  let base: string;
  const LIMIT = 6;
  beforeAll(async () => {
    f = await apiFixture('sqlite', first, { rateLimitPerMinute: LIMIT });
    base = await listening(f);
  });
  afterAll(() => f.close());

  it('counts every replay: past the limit the answer is 429 with {error} and Retry-After', async () => {
    const answers: { status: number; remaining: string | null; retryAfter: string | null; body: string }[] = [];
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await fetch(`${base}/api/transactions?limit=5`);
      answers.push({
        status: res.status,
        remaining: res.headers.get('x-ratelimit-remaining'),
        retryAfter: res.headers.get('retry-after'),
        body: await res.text(),
      });
    }
    expect(answers.map((a) => a.status)).toEqual([...Array(LIMIT).fill(200), 429, 429]);
    expect(answers.slice(0, LIMIT).map((a) => Number(a.remaining))).toEqual(Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i));
    expect(JSON.parse(answers[LIMIT]!.body).error).toMatch(/rate limited/);
    expect(Number(answers[LIMIT]!.retryAfter)).toBeGreaterThan(0);
  });
});

/**
 * POST /api/intelligence/outcomes and the HTTP operator reads, over real HTTP on SQLite and PostgreSQL, with
 * producers and an operator token issued by the real CLI: idempotency, evidence binding, errors with nothing
 * stored, exact cost sums, environment separation, the 401 that leaks nothing, hiding from OpenAPI and MCP,
 * and public answers unchanged byte for byte by a batch of outcomes.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DIALECTS, createTestDb, type TestDb } from '../helpers/db.js';
import { RESULT, SERVICE_ID, counts, deliver, now, operatorCli, outcome, startServer, type Server } from './helpers.js';

interface Issued {
  id: string;
  key: string;
}

const sha256 = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');

describe.each(DIALECTS)('outcomes and operator reads on %s', (dialect) => {
  let db: TestDb;
  let emptyDb: TestDb;
  let server: Server;
  let empty: Server;
  let prodA: Issued, prodB: Issued, prodLive: Issued, conn: Issued;
  let token: string, revokedToken: string;

  const post = (p: Issued, body: string, extra: Partial<Parameters<typeof deliver>[1]> = {}) =>
    deliver(server.url, { path: '/api/intelligence/outcomes', senderHeader: 'x-svc-producer', senderId: p.id, key: p.key, body, ...extra });
  const read = (path: string, auth = `Bearer ${token}`, base = server.url) => fetch(`${base}${path}`, { headers: { authorization: auth } });

  beforeAll(async () => {
    [db, emptyDb] = await Promise.all([createTestDb(dialect), createTestDb(dialect)]);
    prodA = await operatorCli<Issued>(db.url, ['producer', 'enroll', '--name', 'producer-a', '--env', 'test']);
    const r = await Promise.all([
      operatorCli<Issued>(db.url, ['producer', 'enroll', '--name', 'producer-b', '--env', 'test']),
      operatorCli<Issued>(db.url, ['producer', 'enroll', '--name', 'producer-live', '--env', 'live']),
      operatorCli<Issued>(db.url, ['connection', 'create', '--protocol', 'acp', '--name', 'app', '--env', 'test']),
      operatorCli<{ token: string }>(db.url, ['token', 'create', '--name', 'ops']),
      operatorCli<{ token: string; id: string }>(db.url, ['token', 'create', '--name', 'old']),
    ]);
    [prodB, prodLive, conn] = r.slice(0, 3) as Issued[];
    token = (r[3] as { token: string }).token;
    revokedToken = (r[4] as { token: string }).token;
    await operatorCli(db.url, ['token', 'revoke', (r[4] as { id: string }).id]);
    [server, empty] = await Promise.all([startServer(db.url), startServer(emptyDb.url)]);
  }, 300_000);

  afterAll(async () => {
    await Promise.all([server?.close(), empty?.close()]);
    await Promise.all([db?.drop(), emptyDb?.drop()]);
  });

  it('stores a signed outcome (201 receipt), answers a byte-identical retry 200 with the same receipt, and a changed body 409', async () => {
    const body = outcome('o-1');
    const first = await post(prodA, body);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toEqual({ event_id: 'o-1', received_at: expect.any(String), body_sha256: sha256(body) });
    const retry = await post(prodA, body);
    expect(retry).toMatchObject({ status: 200, body: first.body });
    const changed = await post(prodA, outcome('o-1', { attempt_id: 'attempt-2' }));
    expect(changed.status).toBe(409);
    const rows = await server.store.db.selectFrom('intake_outcomes').selectAll().where('event_id', '=', 'o-1').execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      attempt_id: 'attempt-1',
      charge_amount: '0.1',
      service_id: SERVICE_ID,
      verdict: 'pass',
      producer_id: prodA.id,
    });
    expect(Buffer.from(rows[0].body).toString()).toBe(body);
  });

  it('keeps retained evidence only when its sha256 is the fingerprint and it belongs to the same producer and task', async () => {
    const evidence = (p: Partial<{ producer_id: string; task_id: string; content_base64: string }> = {}) => ({
      evidence: { producer_id: prodA.id, task_id: 'task-1', content_base64: RESULT.toString('base64'), ...p },
    });
    const before = await counts(server.store);
    const bad: [Record<string, unknown>, RegExp][] = [
      [
        evidence({ content_base64: Buffer.from('something else').toString('base64') }),
        /evidence sha256 [0-9a-f]{64} does not match result_fingerprint/,
      ],
      [evidence({ producer_id: prodB.id }), /evidence belongs to producer/],
      [evidence({ task_id: 'task-2' }), /evidence belongs to task 'task-2'/],
    ];
    for (const [patch, msg] of bad) {
      const r = await post(prodA, outcome('ev-bad', patch));
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(msg);
    }
    expect(await counts(server.store)).toEqual(before);
    const ok = await post(prodA, outcome('ev-ok', evidence()));
    expect(ok.status).toBe(201);
    const row = await server.store.db
      .selectFrom('intake_outcomes')
      .select('evidence')
      .where('event_id', '=', 'ev-ok')
      .executeTakeFirstOrThrow();
    expect(Buffer.from(row.evidence!).equals(RESULT)).toBe(true);
  });

  it('rejects malformed records and wrong senders with a specific {error}, storing nothing', async () => {
    const cases: [string, Promise<{ status: number; body: Record<string, unknown> }>, number, RegExp][] = [
      [
        'amount as a JSON number',
        post(prodA, outcome('m1', { charge: { amount: 0.1, asset: 'USDC', network: 'eip155:4217' } })),
        400,
        /member 'charge.amount'/,
      ],
      [
        'amount in exponent form',
        post(prodA, outcome('m2', { charge: { amount: '1e-2', asset: 'USDC', network: 'eip155:4217' } })),
        400,
        /exact decimal string/,
      ],
      ['no service', post(prodA, outcome('m3', { service: {} })), 400, /needs service_id or url/],
      ['a bad service_id', post(prodA, outcome('m4', { service: { service_id: 'ABC' } })), 400, /member 'service.service_id'/],
      ['a bad fingerprint', post(prodA, outcome('m5', { result_fingerprint: 'xyz' })), 400, /member 'result_fingerprint'/],
      ['no evaluation version', post(prodA, outcome('m6', { evaluation: { verdict: 'pass' } })), 400, /member 'evaluation.version'/],
      ['a live/test typo', post(prodA, outcome('m7', { environment: 'Live' })), 400, /member 'environment'/],
      ['a protocol-event envelope', post(prodA, JSON.stringify({ schema: 'paywatch.protocol.v1' })), 400, /malformed outcome record/],
      ["producer B's key for A", post(prodA, outcome('m8'), { key: prodB.key }), 401, /bad signature/],
      ['a connection as producer', post(conn, outcome('m9')), 401, /unknown or revoked producer/],
      ['the connection header', post(prodA, outcome('m10'), { senderHeader: 'x-svc-connection' }), 401, /missing X-SVC-Producer/],
      ['a stale timestamp', post(prodA, outcome('m11'), { timestamp: now() - 3600 }), 401, /stale timestamp/],
      ['text/plain', post(prodA, outcome('m12'), { contentType: 'text/plain' }), 415, /unsupported content type/],
    ];
    const before = await counts(server.store);
    for (const [name, p, status, msg] of cases) {
      const r = await p;
      expect(r.status, name).toBe(status);
      expect(r.body.error, name).toMatch(msg);
    }
    expect(await counts(server.store)).toEqual(before);
  });

  it('sums reported charges exactly per service, producer and period, one environment at a time (HTTP and CLI)', async () => {
    const day = Date.UTC(2026, 0, 15) / 1000;
    const batch: [Issued, string, Record<string, unknown>][] = [
      [prodA, 'c1', { occurred_at: day + 10, charge: { amount: '0.1', asset: 'USDC', network: 'eip155:4217' } }],
      [prodA, 'c2', { occurred_at: day + 20, charge: { amount: '0.2', asset: 'USDC', network: 'eip155:4217' } }],
      [
        prodB,
        'c3',
        {
          occurred_at: day + 86400,
          service: { url: 'https://api.example.com/x' },
          charge: { amount: '1.000001', asset: 'USDC', network: 'eip155:4217' },
        },
      ],
      [prodB, 'c4', { occurred_at: day + 30, charge: { amount: '5', asset: 'EURC', network: 'eip155:4217' } }],
      [prodLive, 'c5', { occurred_at: day + 40, environment: 'live', charge: { amount: '7', asset: 'USDC', network: 'eip155:4217' } }],
    ];
    for (const [p, id, patch] of batch) expect((await post(p, outcome(id, patch))).status).toBe(201);
    const q = `since=${day}&until=${day + 2 * 86400}`;
    const res = await read(`/api/operator/costs?env=test&${q}`);
    expect(res.status).toBe(200);
    const s = (await res.json()) as Record<string, { total: string; asset: string; outcomes: number; [k: string]: unknown }[]>;
    // 0.1 + 0.2 is 0.3 exactly (a float sum would give 0.30000000000000004); assets are never added together.
    expect(s.by_service).toEqual([
      { service_id: SERVICE_ID, service_url: null, asset: 'EURC', network: 'eip155:4217', total: '5', outcomes: 1 },
      { service_id: SERVICE_ID, service_url: null, asset: 'USDC', network: 'eip155:4217', total: '0.3', outcomes: 2 },
      { service_id: null, service_url: 'https://api.example.com/x', asset: 'USDC', network: 'eip155:4217', total: '1.000001', outcomes: 1 },
    ]);
    expect(s.by_producer.find((c) => c.producer_id === prodA.id && c.asset === 'USDC')!.total).toBe('0.3');
    expect(s.by_period.map((c) => [c.period, c.asset, c.total])).toEqual([
      ['2026-01-15', 'EURC', '5'],
      ['2026-01-15', 'USDC', '0.3'],
      ['2026-01-16', 'USDC', '1.000001'],
    ]);
    const [cliLive, cliOutcomes] = await Promise.all([
      operatorCli<{ by_service: { total: string }[] }>(db.url, [
        'costs',
        '--env',
        'live',
        '--since',
        String(day),
        '--until',
        String(day + 2 * 86400),
        '--period',
        'month',
      ]),
      operatorCli<{ rows: { event_id: string; environment: string }[] }>(db.url, ['outcomes', 'list', '--env', 'live']),
    ]);
    expect(cliLive.by_service.map((c) => c.total)).toEqual(['7']);
    expect(cliOutcomes.rows.map((r) => [r.event_id, r.environment])).toEqual([['c5', 'live']]);
    const live = (await (await read('/api/operator/outcomes?env=live')).json()) as {
      rows: { event_id: string; record: { charge: unknown } }[];
    };
    expect(live.rows.map((r) => r.event_id)).toEqual(['c5']);
  }, 120_000);

  it('answers 401 to reads without a valid operator token, the same for an empty and a full store', async () => {
    const auths = [
      '',
      'Bearer',
      `Bearer ${revokedToken}`,
      `Bearer ${token}x`,
      `Basic ${Buffer.from('a:b').toString('base64')}`,
      `Bearer op_0000000000000000.pwop_${'A'.repeat(43)}`,
    ];
    for (const path of [
      '/api/operator/events?env=test',
      '/api/operator/outcomes?env=live',
      '/api/operator/costs?env=test',
      '/api/operator/events',
    ]) {
      for (const auth of auths) {
        const [full, none] = await Promise.all([read(path, auth), read(path, auth, empty.url)]);
        const a = { status: full.status, body: await full.text(), www: full.headers.get('www-authenticate') };
        const b = { status: none.status, body: await none.text(), www: none.headers.get('www-authenticate') };
        expect(a, `${path} ${auth}`).toEqual(b);
        expect(a.status).toBe(401);
        // A Bearer token that is not live (revoked, unknown, malformed) is "invalid"; no Bearer token at all is "required".
        const error = /^Bearer \S+$/.test(auth)
          ? 'invalid operator token: it is unknown or revoked; send Authorization: Bearer <a live operator token>'
          : 'operator token required: send Authorization: Bearer <operator token>';
        expect(JSON.parse(a.body)).toEqual({ error });
      }
    }
    expect((await read('/api/operator/events?env=test')).status).toBe(200);
  });

  it('keeps the intake and operator routes out of the public OpenAPI document and the MCP tools', async () => {
    const doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as { paths: Record<string, unknown> };
    const paths = Object.keys(doc.paths);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((p) => /operator|protocol-events|outcomes/.test(p))).toEqual([]);
    const client = new Client({ name: 'intake-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`)));
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(0);
      expect(tools.map((t) => t.name).filter((n) => /operator|outcome|event|intake/.test(n))).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('leaves every public answer byte for byte the same after a batch of outcomes', async () => {
    const paths = [
      '/api/status',
      '/api/coverage',
      '/api/transactions',
      '/api/metrics',
      '/api/providers',
      '/api/intelligence/status',
      '/api/intelligence/offers',
      '/api/openapi.json',
    ];
    // Freeze the clock (Date only; timers and sockets run) so time-stamped members such as as_of stay put.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      const snap = async () =>
        Promise.all(
          paths.map(async (p) => {
            const r = await fetch(`${server.url}${p}`);
            return { p, status: r.status, etag: r.headers.get('etag'), body: await r.text() };
          }),
        );
      const before = await snap();
      expect(before.find((s) => s.p === '/api/openapi.json')!.status).toBe(200);
      for (let i = 0; i < 20; i++) {
        const p = i % 3 === 0 ? prodLive : i % 2 ? prodA : prodB;
        expect(
          (
            await post(
              p,
              outcome(`batch-${i}`, {
                environment: i % 3 ? 'test' : 'live',
                evaluation: { version: 'v1', verdict: i % 2 ? 'fail' : 'pass', score: 0 },
              }),
            )
          ).status,
        ).toBe(201);
      }
      expect(await snap()).toEqual(before);
    } finally {
      vi.useRealTimers();
    }
  });
});

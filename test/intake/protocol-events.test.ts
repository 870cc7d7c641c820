/**
 * POST /api/protocol-events over real HTTP on SQLite and PostgreSQL, with connections issued by the real CLI:
 * valid deliveries, idempotency, every specified error (with nothing stored), signature edge cases,
 * key rotation and revocation, the per-connection rate limit, and environment separation (HTTP and CLI).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { DIALECTS, createTestDb, type TestDb } from '../helpers/db.js';
import { runCli } from '../e2e/cli.js';
import { PROTOCOLS, UNRECOGNISED } from '../../src/intake/protocols.js';
import { NATIVE_RECORDS, UNRECOGNISED_RECORDS } from './native-records.js';
import { TTL_MS } from '../../src/intake/key-cache.js';
import { SECRET, counts, deliver, earlyInSecond, envelope, now, operatorCli, startServer, type Server } from './helpers.js';

interface Issued {
  id: string;
  key: string;
}

const sha256 = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');

describe.each(DIALECTS)('protocol events on %s', (dialect) => {
  let db: TestDb;
  let server: Server;
  const conn: Record<string, Issued> = {};
  let revokable: Issued, rotateIn: Issued, rotateOut: Issued, liveA2a: Issued;
  let token: string;

  beforeAll(async () => {
    db = await createTestDb(dialect);
    // The first CLI call migrates the store; the rest run side by side.
    conn.mcp = await operatorCli<Issued>(db.url, ['connection', 'create', '--protocol', 'mcp', '--name', 'app-mcp', '--env', 'test']);
    const others = PROTOCOLS.filter((p) => p !== 'mcp');
    const create = (p: string, name: string, env = 'test') =>
      operatorCli<Issued>(db.url, ['connection', 'create', '--protocol', p, '--name', name, '--env', env]);
    const issued = await Promise.all([
      ...others.map((p) => create(p, `app-${p}`)),
      create('mcp', 'to-revoke'),
      create('mcp', 'rotate-in-grace'),
      create('mcp', 'rotate-no-grace'),
      create('a2a', 'app-a2a-live', 'live'),
      operatorCli<{ token: string }>(db.url, ['token', 'create', '--name', 'tests']),
    ]);
    for (const [i, p] of others.entries()) conn[p] = issued[i] as Issued;
    [revokable, rotateIn, rotateOut, liveA2a] = issued.slice(others.length, others.length + 4) as Issued[];
    token = (issued.at(-1) as { token: string }).token;
    server = await startServer(db.url);
  }, 300_000);

  afterAll(async () => {
    await server?.close();
    await db?.drop();
  });

  it('stores a valid delivery of every protocol byte for byte, answers 201 with a receipt, and 200 with the same receipt on a byte-identical retry', async () => {
    for (const p of PROTOCOLS) {
      const body = envelope(p, `first-${p}`);
      const first = await deliver(server.url, { senderId: conn[p].id, key: conn[p].key, body });
      expect(first.status, `${p}: ${JSON.stringify(first.body)}`).toBe(201);
      expect(first.body).toEqual({
        event_id: `first-${p}`,
        received_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        body_sha256: sha256(body),
      });
      const before = await counts(server.store);
      const retry = await deliver(server.url, { senderId: conn[p].id, key: conn[p].key, body });
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(first.body);
      expect(await counts(server.store)).toEqual(before);
      const row = await server.store.db
        .selectFrom('intake_protocol_events')
        .selectAll()
        .where('connection_id', '=', conn[p].id)
        .where('event_id', '=', `first-${p}`)
        .executeTakeFirstOrThrow();
      expect(Buffer.from(row.body).equals(Buffer.from(body))).toBe(true);
      expect(row.protocol).toBe(p);
    }
  });

  it('stores every correctly signed record whatever its native shape, annotated with its kind and ids for the operator reads', async () => {
    const sent = [
      ...NATIVE_RECORDS.map((n, i) => ({ ...n, event_id: `native-${i}` })),
      ...UNRECOGNISED_RECORDS.map((u, i) => ({ ...u, event_type: 'x', event_id: `unknown-${i}`, kind: UNRECOGNISED, ids: {} })),
    ];
    for (const n of sent) {
      const body = envelope(n.protocol, n.event_id, 'test', n.record, { event_type: n.event_type });
      const r = await deliver(server.url, { senderId: conn[n.protocol].id, key: conn[n.protocol].key, body });
      expect(r.status, `${n.protocol} ${n.event_id}: ${JSON.stringify(r.body)}`).toBe(201);
      expect(r.body.body_sha256).toBe(sha256(body));
    }
    const page = (await (
      await fetch(`${server.url}/api/operator/events?env=test&limit=100`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { rows: { event_id: string; protocol: string; record: unknown; record_kind: string; record_ids: unknown }[] };
    for (const n of sent) {
      const row = page.rows.find((r) => r.event_id === n.event_id && r.protocol === n.protocol);
      expect(row, n.event_id).toBeDefined();
      expect(row, n.event_id).toMatchObject({ record: n.record, record_kind: n.kind, record_ids: n.ids });
    }
    // The CLI shows the kind too.
    const cli = await runCli(['operator', 'events', 'list', '--env', 'test', '--limit', '100', '--db', db.url], {
      PAYWATCH_SECRET: SECRET,
    });
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/\tucp\torder\torder\tnative-\d+\t/);
    expect(cli.stdout).toMatch(/\tacp\torder_canceled\torder_event\tnative-\d+\t/);
  });

  it('answers 409 to the same event_id with a different body and changes nothing', async () => {
    const c = conn.mcp;
    const body = envelope('mcp', 'dup-1');
    const first = await deliver(server.url, { senderId: c.id, key: c.key, body });
    expect(first.status).toBe(201);
    const changed = envelope('mcp', 'dup-1', 'test', { jsonrpc: '2.0', id: 8, method: 'tools/list' });
    const r = await deliver(server.url, { senderId: c.id, key: c.key, body: changed });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatch(/event_id 'dup-1' was already received with a different body/);
    const row = await server.store.db
      .selectFrom('intake_protocol_events')
      .select(['body_sha256', 'received_at'])
      .where('connection_id', '=', c.id)
      .where('event_id', '=', 'dup-1')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ body_sha256: first.body.body_sha256, received_at: first.body.received_at });
    // The same event_id from another connection is another event.
    const other = await deliver(server.url, { senderId: conn.a2a.id, key: conn.a2a.key, body: envelope('a2a', 'dup-1') });
    expect(other.status).toBe(201);
  });

  it('rejects every malformed, unauthenticated, stale, oversized or mistyped delivery with its status and a specific {error}, storing nothing', async () => {
    const c = conn.mcp;
    const good = envelope('mcp', 'err-case');
    const big = envelope('mcp', 'big', 'test', { jsonrpc: '2.0', id: 1, method: 'x', params: { pad: 'a'.repeat(270 * 1024) } });
    const reserialised = JSON.stringify(JSON.parse(good), null, 2);
    const changedByte = good.replace('"tools/call"', '"tools/calL"');
    const cases: [string, Parameters<typeof deliver>[1], number, RegExp][] = [
      ['not JSON', { senderId: c.id, key: c.key, body: '{"schema":' }, 400, /malformed body: not valid JSON/],
      ['invalid UTF-8', { senderId: c.id, key: c.key, body: Buffer.from([0x7b, 0xff, 0x7d]) }, 400, /not valid UTF-8/],
      ['a JSON array', { senderId: c.id, key: c.key, body: '[]' }, 400, /top level must be a JSON object/],
      [
        'another schema',
        { senderId: c.id, key: c.key, body: envelope('mcp', 'e1', 'test', undefined, { schema: 'paywatch.protocol.v2' }) },
        400,
        /member 'schema'/,
      ],
      [
        'another protocol than the connection',
        { senderId: c.id, key: c.key, body: envelope('ap2', 'e2') },
        400,
        /protocol 'ap2' is not this connection's protocol 'mcp'/,
      ],
      [
        'a fractional event_time',
        { senderId: c.id, key: c.key, body: envelope('mcp', 'e4', 'test', undefined, { event_time: 1.5 }) },
        400,
        /member 'event_time'/,
      ],
      [
        'an unknown environment',
        { senderId: c.id, key: c.key, body: envelope('mcp', 'e5', 'prod' as 'test') },
        400,
        /member 'environment'/,
      ],
      [
        'a record that is not an object',
        { senderId: c.id, key: c.key, body: envelope('mcp', 'e6', 'test', 'text') },
        400,
        /member 'record'/,
      ],
      [
        'an unknown member',
        { senderId: c.id, key: c.key, body: envelope('mcp', 'e7', 'test', undefined, { extra: 1 }) },
        400,
        /malformed envelope/,
      ],
      ['an unknown connection', { senderId: 'conn_0000000000000000', key: c.key, body: good }, 401, /unknown or revoked connection/],
      [
        'no connection header',
        { senderId: c.id, key: c.key, body: good, headers: { 'x-svc-connection': '' } },
        401,
        /missing X-SVC-Connection/,
      ],
      ['a producer id as connection', { senderId: 'prod_0000000000000000', key: c.key, body: good }, 401, /unknown or revoked connection/],
      ['no signature', { senderId: c.id, key: c.key, body: good, signature: '' }, 401, /X-SVC-Signature/],
      ['an upper-case signature', { senderId: c.id, key: c.key, body: good, signature: 'A'.repeat(64) }, 401, /lower-case hex/],
      ['a changed byte in the body', { senderId: c.id, key: c.key, body: changedByte, signedBody: good }, 401, /bad signature/],
      [
        're-serialised JSON with the same meaning',
        { senderId: c.id, key: c.key, body: reserialised, signedBody: good },
        401,
        /bad signature/,
      ],
      ["another connection's key", { senderId: c.id, key: conn.ap2.key, body: good }, 401, /bad signature/],
      [
        'a timestamp that is not seconds',
        { senderId: c.id, key: c.key, body: good, headers: { 'x-svc-timestamp': '2026-11-21' } },
        401,
        /Unix seconds/,
      ],
      ['a body over 256 KiB', { senderId: c.id, key: c.key, body: big }, 413, /request body too large: the limit is 262144 bytes/],
      ['text/plain', { senderId: c.id, key: c.key, body: good, contentType: 'text/plain' }, 415, /unsupported content type/],
      [
        'form encoding',
        { senderId: c.id, key: c.key, body: good, contentType: 'application/x-www-form-urlencoded' },
        415,
        /unsupported content type/,
      ],
    ];
    const before = await counts(server.store);
    for (const [name, d, status, message] of cases) {
      const r = await deliver(server.url, d);
      expect(r.status, name).toBe(status);
      expect(r.body.error, name).toMatch(message);
      expect(Object.keys(r.body), name).toEqual(['error']);
    }
    expect(await counts(server.store)).toEqual(before);
  });

  it('accepts timestamps 299 s away in either direction and rejects 301 s away as stale', async () => {
    const c = conn.mcp;
    for (const [offset, status] of [
      [-299, 201],
      [299, 201],
      [-301, 401],
      [301, 401],
    ] as const) {
      await earlyInSecond();
      const r = await deliver(server.url, {
        senderId: c.id,
        key: c.key,
        body: envelope('mcp', `skew${offset}`),
        timestamp: now() + offset,
      });
      expect(r.status, `offset ${offset}`).toBe(status);
      if (status === 401) expect(r.body.error).toMatch(/^stale timestamp/);
    }
  });

  it('stops a revoked connection within the key cache time, keeps a rotated key inside its grace period, and drops it when the grace is over', async () => {
    const before = await deliver(server.url, { senderId: revokable.id, key: revokable.key, body: envelope('mcp', 'rv-1') });
    expect(before.status).toBe(201);
    const cachedAt = Date.now();
    const [rev, rotIn, rotOut] = await Promise.all([
      operatorCli(db.url, ['connection', 'revoke', revokable.id]),
      operatorCli<Issued>(db.url, ['connection', 'rotate', rotateIn.id, '--grace', '3600']),
      // No --grace: the configured grace period (PAYWATCH_KEY_GRACE_SECONDS) applies, here 0.
      operatorCli<Issued>(db.url, ['connection', 'rotate', rotateOut.id], { PAYWATCH_KEY_GRACE_SECONDS: '0' }),
    ]);
    expect(rev).toEqual({ id: revokable.id, revoked: true });
    // The server remembers opened keys for TTL_MS (src/intake/key-cache.ts): revocation by another process takes
    // effect once that has passed since the key was last read (the CLI can finish well within it).
    await new Promise((r) => setTimeout(r, Math.max(0, cachedAt + TTL_MS + 50 - Date.now())));
    const revoked = await deliver(server.url, { senderId: revokable.id, key: revokable.key, body: envelope('mcp', 'rv-2') });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error).toMatch(/unknown or revoked connection/);

    expect(rotIn.key).not.toBe(rotateIn.key);
    expect((await deliver(server.url, { senderId: rotateIn.id, key: rotateIn.key, body: envelope('mcp', 'ri-old') })).status).toBe(201);
    expect((await deliver(server.url, { senderId: rotateIn.id, key: rotIn.key, body: envelope('mcp', 'ri-new') })).status).toBe(201);

    const old = await deliver(server.url, { senderId: rotateOut.id, key: rotateOut.key, body: envelope('mcp', 'ro-old') });
    expect(old.status).toBe(401);
    expect(old.body.error).toMatch(/bad signature/);
    expect((await deliver(server.url, { senderId: rotateOut.id, key: rotOut.key, body: envelope('mcp', 'ro-new') })).status).toBe(201);

    const list = await operatorCli<{ id: string; active_keys: number; revoked_at: number | null }[]>(db.url, ['connection', 'list']);
    const byId = new Map(list.map((c) => [c.id, c]));
    expect(byId.get(rotateIn.id)!.active_keys).toBe(2);
    expect(byId.get(rotateOut.id)!.active_keys).toBe(1);
    expect(byId.get(revokable.id)!.revoked_at).not.toBeNull();
    expect(JSON.stringify(list)).not.toContain('pwk_');
  }, 120_000);

  it('answers 429 with Retry-After over the per-connection rate limit, stores nothing for it, and leaves other connections alone', async () => {
    const limited = await startServer(db.url, { PAYWATCH_INTAKE_RATE_LIMIT: '3' });
    try {
      const c = conn.ucp;
      for (let i = 0; i < 3; i++)
        expect((await deliver(limited.url, { senderId: c.id, key: c.key, body: envelope('ucp', `rl-${i}`) })).status).toBe(201);
      const before = await counts(limited.store);
      const r = await deliver(limited.url, { senderId: c.id, key: c.key, body: envelope('ucp', 'rl-3') });
      expect(r.status).toBe(429);
      expect(r.body.error).toMatch(/rate limited: at most 3 deliveries per minute per sender/);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await counts(limited.store)).toEqual(before);
      expect((await deliver(limited.url, { senderId: conn.acp.id, key: conn.acp.key, body: envelope('acp', 'rl-other') })).status).toBe(
        201,
      );
    } finally {
      await limited.close();
    }
  });

  it('never mixes environments: a live read returns no test record, over HTTP and in the CLI', async () => {
    const c = conn.a2a;
    expect((await deliver(server.url, { senderId: liveA2a.id, key: liveA2a.key, body: envelope('a2a', 'env-live', 'live') })).status).toBe(
      201,
    );
    expect((await deliver(server.url, { senderId: c.id, key: c.key, body: envelope('a2a', 'env-test', 'test') })).status).toBe(201);
    const get = (q: string) => fetch(`${server.url}/api/operator/events?${q}`, { headers: { authorization: `Bearer ${token}` } });
    const live = (await (await get('env=live&limit=100')).json()) as {
      total: number;
      rows: { event_id: string; environment: string; record: unknown }[];
    };
    expect(live.rows.map((r) => r.event_id)).toEqual(['env-live']);
    expect(live.total).toBe(1);
    expect(live.rows[0].record).toEqual(JSON.parse(envelope('a2a', 'x')).record);
    const test = (await (await get('env=test&limit=100')).json()) as { rows: { environment: string; event_id: string }[] };
    expect(test.rows.length).toBeGreaterThan(5);
    expect(test.rows.every((r) => r.environment === 'test')).toBe(true);
    const noEnv = await get('limit=10');
    expect(noEnv.status).toBe(400);
    expect(((await noEnv.json()) as { error: string }).error).toMatch(/'env'/);

    const [cliLive, cliNoEnv] = await Promise.all([
      operatorCli<{ rows: { event_id: string }[] }>(db.url, ['events', 'list', '--env', 'live']),
      runCli(['operator', 'events', 'list', '--db', db.url], { PAYWATCH_SECRET: SECRET }),
    ]);
    expect(cliLive.rows.map((r) => r.event_id)).toEqual(['env-live']);
    expect(cliNoEnv.code).not.toBe(0);
    expect(cliNoEnv.stderr).toMatch(/--env/);
  }, 120_000);
});

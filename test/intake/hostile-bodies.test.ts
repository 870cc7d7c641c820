/**
 * Signed but hostile deliveries, over real HTTP on SQLite and PostgreSQL: credentials bind test or live (the
 * other environment is 403), duplicate member names at any level are 400, a byte-order mark is never stored,
 * nesting past 64 levels is 400, control characters never reach a text column; rows stored before these checks
 * (written straight into the tables, as the earlier intake stored them: a fault the current intake can no
 * longer cause) never break an operator read over HTTP or in the CLI; and no part of a private body reaches
 * the server log (pino lines captured from the running server).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { Migrator } from 'kysely';
import { DIALECTS, createTestDb, type TestDb } from '../helpers/db.js';
import { openStore, type Store } from '../../src/store/db.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import { verificationKeys } from '../../src/store/intake/senders.js';
import { KeyVault } from '../../src/intake/keys.js';
import { issueOperatorToken, issueSender } from '../../src/intake/operator.js';
import { MasterSecret } from '../../src/secrets/index.js';
import { runCli } from '../e2e/cli.js';
import { SECRET, counts, deliver, envelope, now, operatorCli, outcome, startServer, type Server } from './helpers.js';

interface Issued {
  id: string;
  key: string;
}

const sha256 = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** A record nested `levels` deep: {"n":{"n":…{}}}. */
const nested = (levels: number): string => `${'{"n":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

describe.each(DIALECTS)('hostile signed bodies on %s', (dialect) => {
  let db: TestDb;
  let store: Store;
  let server: Server;
  let connTest: Issued, connLive: Issued, prodTest: Issued, prodLive: Issued;
  let token: string;
  /** Every pino line the server wrote. */
  const logLines: string[] = [];
  /** Every private body sent or stored by these tests, to look for in the log. */
  const privateBodies: string[] = [];

  const send = (c: Issued, body: string | Buffer) => {
    privateBodies.push(
      Buffer.from(body)
        .toString('utf8')
        .replace(/^\ufeff/, ''),
    );
    return deliver(server.url, { senderId: c.id, key: c.key, body });
  };
  const sendOutcome = (p: Issued, body: string | Buffer) => {
    privateBodies.push(Buffer.from(body).toString('utf8'));
    return deliver(server.url, { path: '/api/intelligence/outcomes', senderHeader: 'x-svc-producer', senderId: p.id, key: p.key, body });
  };
  const read = async (path: string) => {
    const r = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: r.status, body: (await r.json()) as { rows: Record<string, unknown>[]; error?: string } };
  };

  beforeAll(async () => {
    db = await createTestDb(dialect);
    store = await openStore(db.url);
    const vault = new KeyVault(MasterSecret.parse(SECRET));
    [connTest, connLive, prodTest, prodLive] = await Promise.all([
      issueSender(store, vault, 'connection', 'app-test', 'mcp', 'test'),
      issueSender(store, vault, 'connection', 'app-live', 'mcp', 'live'),
      issueSender(store, vault, 'producer', 'producer-test', null, 'test'),
      issueSender(store, vault, 'producer', 'producer-live', null, 'live'),
    ]);
    token = (await issueOperatorToken(store, 'ops')).token;
    server = await startServer(db.url, {}, { level: 'info', stream: { write: (line: string) => void logLines.push(line) } });
  });

  afterAll(async () => {
    await server?.close();
    await store?.close();
    await db?.drop();
  });

  it('refuses a delivery naming the other environment than its credentials with 403 {error}, storing nothing', async () => {
    const before = await counts(store);
    const cases: [string, Promise<{ status: number; body: Record<string, unknown> }>][] = [
      ['test connection, live event', send(connTest, envelope('mcp', 'env-1', 'live'))],
      ['live connection, test event', send(connLive, envelope('mcp', 'env-2', 'test'))],
      ['test producer, live outcome', sendOutcome(prodTest, outcome('env-3', { environment: 'live' }))],
      ['live producer, test outcome', sendOutcome(prodLive, outcome('env-4', { environment: 'test' }))],
    ];
    for (const [name, p] of cases) {
      const r = await p;
      expect(r.status, name).toBe(403);
      expect(Object.keys(r.body), name).toEqual(['error']);
      expect(r.body.error, name).toMatch(
        /^environment mismatch: .* is '(test|live)' but this (connection|producer) was issued for '(test|live)'/,
      );
    }
    expect(await counts(store)).toEqual(before);
    expect((await send(connLive, envelope('mcp', 'env-5', 'live'))).status).toBe(201);
    expect((await sendOutcome(prodLive, outcome('env-6', { environment: 'live' }))).status).toBe(201);
  });

  it('refuses bodies with duplicate member names at any level with 400 {error}, storing nothing; equal names in different objects are fine', async () => {
    const base = envelope('mcp', 'dup-1', 'test');
    const cases: [string, Promise<{ status: number; body: Record<string, unknown> }>][] = [
      ['a second environment', send(connTest, base.replace(/}$/, ',"environment":"live"}'))],
      ['the same name escaped', send(connTest, base.replace(/}$/, ',"\\u0065nvironment":"test"}'))],
      [
        'a duplicate inside the record',
        send(
          connTest,
          envelope('mcp', 'dup-2', 'test', { jsonrpc: '2.0', id: 1, method: 'a' }).replace('"method":"a"', '"method":"a","method":"b"'),
        ),
      ],
      [
        'a duplicate deep inside the record',
        send(
          connTest,
          envelope('mcp', 'dup-3', 'test', { jsonrpc: '2.0', method: 'a', params: { x: [{ y: 1 }] } }).replace('{"y":1}', '{"y":1,"y":2}'),
        ),
      ],
      [
        'a duplicate in an outcome charge',
        sendOutcome(prodTest, outcome('dup-4').replace('"amount":"0.1"', '"amount":"0.1","amount":"100"')),
      ],
    ];
    const before = await counts(store);
    for (const [name, p] of cases) {
      const r = await p;
      expect(r.status, name).toBe(400);
      expect(r.body.error, name).toMatch(/^malformed body: duplicate member name at character \d+/);
    }
    expect(await counts(store)).toEqual(before);
    const siblings = envelope('mcp', 'dup-ok', 'test', {
      jsonrpc: '2.0',
      method: 'a',
      params: { a: { x: 1, s: 'x":"x' }, b: { x: 1 }, list: [{ x: 1 }, { x: 2 }] },
    });
    expect((await send(connTest, siblings)).status).toBe(201);
  });

  it('stores a body sent with a byte-order mark without it, as validated; a byte-identical retry gets the same receipt', async () => {
    const text = envelope('mcp', 'bom-1', 'test');
    const withBom = Buffer.concat([BOM, Buffer.from(text)]);
    const first = await send(connTest, withBom);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.body_sha256).toBe(sha256(text));
    const row = await store.db
      .selectFrom('intake_protocol_events')
      .select(['body', 'body_sha256'])
      .where('connection_id', '=', connTest.id)
      .where('event_id', '=', 'bom-1')
      .executeTakeFirstOrThrow();
    expect(Buffer.from(row.body).equals(Buffer.from(text))).toBe(true);
    const retry = await send(connTest, withBom);
    expect(retry).toMatchObject({ status: 200, body: first.body });
    // Only one mark is dropped: a second one is not JSON.
    expect((await send(connTest, Buffer.concat([BOM, BOM, Buffer.from(envelope('mcp', 'bom-2'))]))).status).toBe(400);
    const page = await read('/api/operator/events?env=test&limit=100');
    expect(page.body.rows.find((r) => r.event_id === 'bom-1')).toMatchObject({
      record_error: null,
      stored_body_base64: null,
      record: JSON.parse(text).record,
    });
  });

  it('caps nesting at 64 levels (the envelope is level 1) with 400 beyond, for events and outcomes', async () => {
    // The envelope is level 1 and the record level 2, so a record nested 63 deep reaches level 64.
    const at64 = envelope('mcp', 'deep-64', 'test', { jsonrpc: '2.0', method: 'a', params: '@' }).replace('"@"', nested(62));
    expect((await send(connTest, at64)).status).toBe(201);
    const before = await counts(store);
    for (const [id, levels] of [
      ['deep-65', 63],
      ['deep-5000', 5000],
    ] as const) {
      const r = await send(
        connTest,
        envelope('mcp', id, 'test', { jsonrpc: '2.0', method: 'a', params: '@' }).replace('"@"', nested(levels)),
      );
      expect(r.status, id).toBe(400);
      expect(r.body.error).toMatch(/^malformed body: objects and arrays nested deeper than 64 levels/);
    }
    const deepCriteria = await sendOutcome(
      prodTest,
      outcome('deep-o', { evaluation: { version: 'v', verdict: 'pass', criteria: '@' } }).replace('"@"', '['.repeat(70) + ']'.repeat(70)),
    );
    expect(deepCriteria.status).toBe(400);
    expect(await counts(store)).toEqual(before);
  });

  it('refuses control characters in members kept in text columns (NUL breaks PostgreSQL text) with 400', async () => {
    const before = await counts(store);
    const cases: [string, Promise<{ status: number; body: Record<string, unknown> }>, RegExp][] = [
      [
        'NUL in event_type',
        send(connTest, envelope('mcp', 'ctl-1', 'test', undefined, { event_type: 'tools/\u0000call' })),
        /member 'event_type' must not contain control characters/,
      ],
      [
        'ESC in event_type',
        send(connTest, envelope('mcp', 'ctl-2', 'test', undefined, { event_type: '\u001b[31mred' })),
        /member 'event_type'/,
      ],
      [
        'NUL in an outcome asset',
        sendOutcome(prodTest, outcome('ctl-3', { charge: { amount: '1', asset: 'US\u0000DC', network: 'eip155:4217' } })),
        /member 'charge.asset'/,
      ],
      [
        'C1 CSI in a verdict',
        sendOutcome(prodTest, outcome('ctl-4', { evaluation: { version: 'v', verdict: 'pass\u009b2J' } })),
        /member 'evaluation.verdict'/,
      ],
    ];
    for (const [name, p, msg] of cases) {
      const r = await p;
      expect(r.status, `${name}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.error, name).toMatch(msg);
    }
    expect(await counts(store)).toEqual(before);
  });

  it('refuses ill-formed UTF-16 (a lone surrogate escape) anywhere in a body with 400 {error}, storing nothing; a valid pair is stored as sent', async () => {
    const before = await counts(store);
    const cases: [string, Promise<{ status: number; body: Record<string, unknown> }>][] = [
      [
        'a lone high surrogate in the record',
        send(connTest, envelope('mcp', 'sur-1', 'test', { jsonrpc: '2.0', id: 1, method: 'a\ud800b' })),
      ],
      ['a lone low surrogate in event_type', send(connTest, envelope('mcp', 'sur-2', 'test', undefined, { event_type: 'x\udc00' }))],
      ['reversed pair in a member name', send(connTest, envelope('mcp', 'sur-3', 'test', { '\udc00\ud800': 1 }))],
      ['a lone surrogate in an outcome', sendOutcome(prodTest, outcome('sur-4', { task_id: '\udfff' }))],
    ];
    for (const [name, p] of cases) {
      const r = await p;
      expect(r.status, `${name}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(Object.keys(r.body), name).toEqual(['error']);
      expect(r.body.error, name).toMatch(/^malformed body: ill-formed UTF-16 in the string at character \d+/);
    }
    expect(await counts(store)).toEqual(before);
    // A surrogate pair is one character (U+1F600): accepted, and read back exactly.
    const ok = await send(connTest, envelope('mcp', 'sur-5', 'test', { jsonrpc: '2.0', id: 1, method: 'smile \ud83d\ude00' }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const rows = (await read('/api/operator/events?env=test&limit=100')).body.rows;
    const row = rows.find((r) => r.event_id === 'sur-5') as { record: { method: string } } | undefined;
    expect(row?.record.method).toBe('smile \u{1f600}');
  });

  it('never fails an operator read (HTTP or CLI) because of one stored row: a row that does not render is shown as its bytes with a flag', async () => {
    // Rows as the earlier intake stored them: a BOM kept (read back as validated: it renders), a record 5,000
    // levels deep and bytes that are not UTF-8 (these two do not render).
    const t = now() - 30;
    const poison: [string, Buffer][] = [
      ['poison-bom', Buffer.concat([BOM, Buffer.from(envelope('mcp', 'poison-bom'))])],
      [
        'poison-deep',
        Buffer.from(envelope('mcp', 'poison-deep', 'test', { jsonrpc: '2.0', method: 'a', params: '@' }).replace('"@"', nested(5000))),
      ],
      ['poison-utf8', Buffer.concat([Buffer.from('{"record":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])],
    ];
    for (const [id, body] of poison) {
      privateBodies.push(body.toString('utf8').replace(/^\ufeff/, ''));
      await store.db
        .insertInto('intake_protocol_events')
        .values({
          connection_id: connTest.id,
          event_id: id,
          environment: 'test',
          protocol: 'mcp',
          event_type: 'tools/call',
          event_time: t,
          body,
          body_sha256: sha256(body),
          received_at: new Date().toISOString(),
        })
        .execute();
    }
    const outcomeRows: [string, Buffer][] = [
      ['poison-o-bom', Buffer.concat([BOM, Buffer.from(outcome('poison-o-bom'))])],
      [
        'poison-o-deep',
        Buffer.from(
          outcome('poison-o-deep', { evaluation: { version: 'v', verdict: 'pass', criteria: '@' } }).replace(
            '"@"',
            '['.repeat(5000) + ']'.repeat(5000),
          ),
        ),
      ],
    ];
    for (const [id, body] of outcomeRows) {
      privateBodies.push(body.toString('utf8').replace(/^\ufeff/, ''));
      await store.db
        .insertInto('intake_outcomes')
        .values({
          producer_id: prodTest.id,
          event_id: id,
          environment: 'test',
          occurred_at: t,
          task_id: 'task-1',
          attempt_id: 'attempt-1',
          service_id: 'a'.repeat(64),
          service_url: null,
          charge_amount: '0.1',
          charge_asset: 'USDC',
          charge_network: 'eip155:4217',
          charge_tx_hash: null,
          charge_protocol: null,
          result_fingerprint: 'b'.repeat(64),
          evaluation_version: 'v',
          verdict: 'pass',
          score: null,
          evidence: null,
          body,
          body_sha256: sha256(body),
          received_at: new Date().toISOString(),
        })
        .execute();
    }
    expect((await sendOutcome(prodTest, outcome('fine-o'))).status).toBe(201);

    const events = await read('/api/operator/events?env=test&limit=100');
    expect(events.status, JSON.stringify(events.body)).toBe(200);
    const eventRow = (id: string) => events.body.rows.find((r) => r.event_id === id)!;
    for (const [id, body] of poison.slice(1)) {
      expect(eventRow(id), id).toMatchObject({
        record: null,
        record_error: expect.stringMatching(/^malformed body: /),
        stored_body_base64: body.toString('base64'),
      });
    }
    expect(eventRow('poison-deep').record_error).toMatch(/nested deeper than 64 levels/);
    expect(eventRow('poison-utf8').record_error).toBe('malformed body: not valid UTF-8');
    expect(eventRow('poison-bom')).toMatchObject({
      record: JSON.parse(envelope('mcp', 'x')).record,
      record_error: null,
      stored_body_base64: null,
    });
    const outcomes = await read('/api/operator/outcomes?env=test&limit=100');
    expect(outcomes.status).toBe(200);
    const outcomeRow = (id: string) => outcomes.body.rows.find((r) => r.event_id === id)!;
    expect(outcomeRow('poison-o-deep')).toMatchObject({
      record: null,
      record_error: expect.stringMatching(/nested deeper than 64 levels/),
      stored_body_base64: outcomeRows[1][1].toString('base64'),
    });
    expect(outcomeRow('poison-o-bom')).toMatchObject({ record: expect.objectContaining({ event_id: 'poison-o-bom' }), record_error: null });
    expect(outcomeRow('fine-o')).toMatchObject({
      record: expect.objectContaining({ task_id: 'task-1' }),
      record_error: null,
      stored_body_base64: null,
    });

    const [eventsText, eventsJson, outcomesText] = await Promise.all([
      runCli(['operator', 'events', 'list', '--env', 'test', '--limit', '100', '--db', db.url], { PAYWATCH_SECRET: SECRET }),
      runCli(['operator', 'events', 'list', '--env', 'test', '--limit', '100', '--db', db.url, '--json'], { PAYWATCH_SECRET: SECRET }),
      runCli(['operator', 'outcomes', 'list', '--env', 'test', '--limit', '100', '--db', db.url], { PAYWATCH_SECRET: SECRET }),
    ]);
    expect(eventsText.code, eventsText.stderr).toBe(0);
    expect(eventsText.stdout).toMatch(
      /poison-deep\tsha256 [0-9a-f]{64}\t\[stored body not shown: malformed body: objects and arrays nested deeper than 64 levels/,
    );
    expect(eventsJson.code, eventsJson.stderr).toBe(0);
    const cliRows = (JSON.parse(eventsJson.stdout) as { rows: { event_id: string; stored_body_base64: string | null }[] }).rows;
    expect(cliRows.find((r) => r.event_id === 'poison-utf8')!.stored_body_base64).toBe(poison[2][1].toString('base64'));
    expect(outcomesText.code, outcomesText.stderr).toBe(0);
    expect(outcomesText.stdout).toMatch(
      /\[stored body not shown: malformed body: objects and arrays nested deeper than 64 levels \(at character \d+\); see --json stored_body_base64\]\tpoison-o-deep/,
    );
    expect(outcomesText.stdout).toMatch(/task task-1\/attempt-1\tpass\t0\.1 0x20c0000000000000000000000000000000000000\tfine-o/);
  }, 120_000);

  it('writes no part of any private body to the server log', async () => {
    // Bodies the server must refuse or could fail on, each carrying private text.
    const hostile: Buffer[] = [
      Buffer.from('{"s3cr3t-member": x}'),
      Buffer.concat([Buffer.from('{"s3cr3t":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
      Buffer.from(envelope('mcp', 'log-1', 'test', { jsonrpc: '2.0', method: 's3cr3t-method', params: '@' }).replace('"@"', nested(200))),
    ];
    // Statuses are the other tests' business: here only what reaches the log counts.
    for (const b of hostile) await send(connTest, b);
    await read('/api/operator/events?env=test&limit=100');
    await read('/api/operator/outcomes?env=test&limit=100');
    expect(logLines.length).toBeGreaterThan(0);
    // Log lines are JSON: search what they say (pino's own base members and the access log's route pattern, a
    // constant such as /api/protocol-events, aside) for any 8 consecutive characters of any private body (V8's
    // JSON.parse message, for one, quotes about 10 characters of the text).
    const said = logLines
      .map((l) => {
        const { level: _l, time: _t, pid: _p, hostname: _h, route: _r, ...rest } = JSON.parse(l) as Record<string, unknown>;
        return collectStrings(rest);
      })
      .join('\n');
    for (const body of privateBodies) {
      for (let i = 0; i + 8 <= body.length; i++) {
        const piece = body.slice(i, i + 8);
        if (said.includes(piece)) throw new Error(`the server log holds '${piece}' of a private body`);
      }
    }
    expect(logLines.filter((l) => JSON.parse(l).level >= 50)).toEqual([]);
  });

  it('requires --env on connection create and producer enroll, stores it and lists it', async () => {
    const [noEnvConn, noEnvProd, live] = await Promise.all([
      runCli(['operator', 'connection', 'create', '--protocol', 'mcp', '--name', 'x', '--db', db.url, '--json'], {
        PAYWATCH_SECRET: SECRET,
      }),
      runCli(['operator', 'producer', 'enroll', '--name', 'x', '--db', db.url, '--json'], { PAYWATCH_SECRET: SECRET }),
      operatorCli<Issued & { environment: string }>(db.url, [
        'connection',
        'create',
        '--protocol',
        'acp',
        '--name',
        'live-app',
        '--env',
        'live',
      ]),
    ]);
    for (const r of [noEnvConn, noEnvProd]) {
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/--env/);
    }
    expect(live).toMatchObject({ environment: 'live', key: expect.stringMatching(/^pwk_/) });
    const list = await operatorCli<{ id: string; environment: string }[]>(db.url, ['connection', 'list']);
    expect(list.find((c) => c.id === live.id)!.environment).toBe('live');
    expect(list.find((c) => c.id === connTest.id)!.environment).toBe('test');
    expect((await deliver(server.url, { senderId: live.id, key: live.key, body: envelope('acp', 'cli-live', 'test') })).status).toBe(403);
  }, 120_000);
});

describe.each(DIALECTS)('sender environment migration on %s', (dialect) => {
  let db: TestDb;
  afterAll(async () => db?.drop());

  it("gives senders issued before intake_0002 the environment 'test'", async () => {
    db = await createTestDb(dialect);
    const old = await openStore(db.url, { migrate: false });
    try {
      const r = await new Migrator({ db: old.db, provider: migrationProvider, allowUnorderedMigrations: true }).migrateTo(
        'intake_0001_senders_keys_events_outcomes',
      );
      expect(r.error).toBeUndefined();
      // The columns of intake_0001, without environment.
      const sender = { id: 'conn_0123456789abcdef', kind: 'connection', name: 'old', protocol: 'mcp', created_at: 1, revoked_at: null };
      await old.db
        .insertInto('intake_senders')
        .values(sender as never)
        .execute();
      await old.db
        .insertInto('intake_keys')
        .values({ id: 'key_0123456789abcdef', sender_id: sender.id, sealed: 'x', created_at: 1, expires_at: null })
        .execute();
    } finally {
      await old.close();
    }
    const store = await openStore(db.url);
    try {
      const row = await store.db
        .selectFrom('intake_senders')
        .select('environment')
        .where('id', '=', 'conn_0123456789abcdef')
        .executeTakeFirstOrThrow();
      expect(row.environment).toBe('test');
      expect((await verificationKeys(store, 'connection', 'conn_0123456789abcdef', now()))!.sender.environment).toBe('test');
    } finally {
      await store.close();
    }
  });
});

/** Every string value (and member name) in a parsed log line, joined. */
function collectStrings(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(collectStrings).join('\n');
  if (v && typeof v === 'object')
    return Object.entries(v)
      .map(([k, x]) => `${k}\n${collectStrings(x)}`)
      .join('\n');
  return '';
}

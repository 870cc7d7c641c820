/**
 * /api/mcp through the MCP Inspector in CLI mode (@modelcontextprotocol/inspector, a development dependency; it
 * declares Node ≥ 22.19 but its CLI runs on Node 20): tools/list, then every tool called once with valid arguments
 * and once with invalid ones, each a separate `mcp-inspector --cli` process against a real listener.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { MCP_TOOLS } from '../../src/mcp/tools.js';
import { seedStore } from '../../src/seed/chain.js';
import { seedDomain, seedIntel } from '../../src/seed/intel.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const run = promisify(execFile);

/** One valid and one invalid argument set per tool (`--tool-arg key=value`; values are read as JSON when they parse). */
const CALLS: Record<keyof typeof MCP_TOOLS, [string[], string[]]> = {
  search_providers: [['limit=2'], ['limit=0']],
  get_provider: [[`domain=${seedDomain(1)}`], ['domain=-']],
  get_intelligence_status: [[], ['x=1']],
  get_service_offers: [['limit=3'], ['service_id=xyz']],
  get_service_changes: [['limit=3'], ['limit=101']],
  get_service_history: [[`domain=${seedDomain(0)}`], []],
  search_transactions: [['limit=2', 'offset=1'], ['limit=0']],
  get_transaction: [['hash=HASH'], ['hash=0x00']],
  get_metrics: [[], ['execution=maybe']],
  get_metrics_series: [['bucket=day'], ['bucket=week']],
  get_coverage: [[], ['x=1']],
  get_status: [[], ['x=1']],
  get_rankings: [
    ['kind=services', 'by=payments'],
    ['kind=services', 'by=revenue'],
  ],
  get_service_payments: [[`provider=${seedDomain(1)}`], ['service_id=xyz']],
};

describe('/api/mcp through the MCP Inspector CLI', () => {
  let t: TestDb;
  let store: Store;
  let app: FastifyInstance;
  let url: string;
  let hash: string;
  beforeAll(async () => {
    t = await createTestDb('sqlite');
    store = await openStore(t.url);
    await seedStore(store, { count: 200, seed: 3 });
    await seedIntel(store, { providers: 3, servicesPerProvider: 2, snapshotsPerService: 3 });
    app = await buildApp({ store, config: loadConfig({ db: t.url }, {}), components: new Map() }, { logger: false });
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    url = `${base}/api/mcp`;
    hash = ((await (await fetch(`${base}/api/transactions?limit=1`)).json()) as { rows: { hash: string }[] }).rows[0].hash;
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await t?.drop();
  });

  /** Runs the Inspector CLI; its exit code is not 0 when the tool answered isError. */
  const inspector = async (...args: string[]) => {
    const r = await run('npx', ['mcp-inspector', '--cli', url, '--transport', 'http', ...args], { timeout: 60_000 }).catch(
      (e: { stdout: string; code: number }) => e,
    );
    return { code: (r as { code?: number }).code ?? 0, out: JSON.parse(r.stdout) };
  };

  it('tools/list shows every tool', async () => {
    const { code, out } = await inspector('--method', 'tools/list');
    expect(code).toBe(0);
    expect(out.tools.map((x: { name: string }) => x.name)).toEqual(Object.keys(MCP_TOOLS));
  }, 90_000);

  it.each(Object.entries(CALLS))(
    '%s: valid arguments answer, invalid ones are a tool error',
    async (name, [good, bad]) => {
      const withArgs = (a: string[]) => a.flatMap((x) => ['--tool-arg', x.replace('HASH', hash)]);
      const ok = await inspector('--method', 'tools/call', '--tool-name', name, ...withArgs(good));
      expect(ok.code, JSON.stringify(ok.out).slice(0, 300)).toBe(0);
      expect(ok.out.isError).toBeFalsy();
      expect(JSON.parse(ok.out.content[0].text)).toEqual(ok.out.structuredContent);
      const no = await inspector('--method', 'tools/call', '--tool-name', name, ...withArgs(bad));
      expect(no.out.isError).toBe(true);
      expect(JSON.parse(no.out.content[0].text).error).toMatch(/^(invalid|unknown|provider|transaction) /);
    },
    120_000,
  );
});

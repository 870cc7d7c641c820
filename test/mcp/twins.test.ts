/**
 * Every /api/mcp tool answers what its HTTP twin answers, on both dialects: structuredContent and its text copy
 * equal the twin's 200 body, and a tool error's text equals the twin's `{error}` body, over a deterministic
 * synthetic chain (seedStore) and provider intelligence (seedIntel) read at a pinned clock through the real app.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CallToolResultSchema, JSONRPCResultResponseSchema } from '@modelcontextprotocol/sdk/types.js';
import { MCP_TOOLS } from '../../src/mcp/tools.js';
import { seedDomain } from '../../src/seed/intel.js';
import { DIALECTS } from '../helpers/db.js';
import { type SeededApp, startSeededApp } from '../helpers/seeded-app.js';

const NOW = new Date('2026-11-20T12:00:00.000Z');
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

/** [tool, arguments, HTTP twin]; `HASH` in a path or argument is a recorded transaction's hash. */
type Case = [string, Record<string, unknown>, string];

const ANSWERS: Case[] = [
  ['search_providers', {}, '/api/providers'],
  ['search_providers', { q: 'weather', limit: 3 }, '/api/providers?q=weather&limit=3'],
  ['search_providers', { limit: 2, offset: 2, include_stale: true }, '/api/providers?limit=2&offset=2&include_stale=true'],
  ['get_provider', { domain: seedDomain(1) }, `/api/providers/${seedDomain(1)}`],
  ['get_intelligence_status', {}, '/api/intelligence/status'],
  ['get_service_offers', {}, '/api/intelligence/offers'],
  ['get_service_offers', { limit: 4, offset: 3 }, '/api/intelligence/offers?limit=4&offset=3'],
  ['get_service_offers', { domain: seedDomain(2) }, `/api/intelligence/offers?domain=${seedDomain(2)}`],
  ['get_service_changes', { limit: 5 }, '/api/intelligence/changes?limit=5'],
  ['get_service_changes', { since: 1793491200, limit: 3 }, '/api/intelligence/changes?since=1793491200&limit=3'],
  [
    'get_service_history',
    { domain: seedDomain(0), limit: 3, offset: 1 },
    `/api/intelligence/history?domain=${seedDomain(0)}&limit=3&offset=1`,
  ],
  ['search_transactions', {}, '/api/transactions'],
  ['search_transactions', { limit: 3, offset: 40 }, '/api/transactions?limit=3&offset=40'],
  ['search_transactions', { limit: 5, asset: 'USDC.e' }, '/api/transactions?limit=5&asset=USDC.e'],
  ['search_transactions', { limit: 5, execution: 'failed' }, '/api/transactions?limit=5&execution=failed'],
  ['search_transactions', { limit: 5, exchange: 'Uniswap v3' }, '/api/transactions?limit=5&exchange=Uniswap%20v3'],
  [
    'search_transactions',
    { limit: 4, since: 1767226200, until: 1767226800 },
    '/api/transactions?limit=4&since=1767226200&until=1767226800',
  ],
  ['get_transaction', { hash: 'HASH' }, '/api/transactions/HASH'],
  ['get_metrics', {}, '/api/metrics'],
  ['get_metrics', { asset: 'EURC' }, '/api/metrics?asset=EURC'],
  [
    'get_metrics',
    { since: 1767226200, until: 1767229200, execution: 'success' },
    '/api/metrics?since=1767226200&until=1767229200&execution=success',
  ],
  ['get_metrics_series', { since: 1767225600, until: 1767312000 }, '/api/metrics/series?since=1767225600&until=1767312000'],
  ['get_metrics_series', { bucket: 'day' }, '/api/metrics/series?bucket=day'],
  ['get_metrics_series', { bucket: 'day', split: 'protocol' }, '/api/metrics/series?bucket=day&split=protocol'],
  ['get_coverage', {}, '/api/coverage'],
  ['get_status', {}, '/api/status'],
  ['get_rankings', { kind: 'recipients' }, '/api/rankings/recipients'],
  [
    'get_rankings',
    { kind: 'recipients', exclude: 'self_payment,self_funded' },
    '/api/rankings/recipients?exclude=self_payment,self_funded',
  ],
  ['get_metrics', { exclude: 'self_payment,self_funded' }, '/api/metrics?exclude=self_payment,self_funded'],
  ['get_metrics_series', { bucket: 'day', exclude: 'self_funded' }, '/api/metrics/series?bucket=day&exclude=self_funded'],
  [
    'get_rankings',
    { kind: 'payers', by: 'payments', since: 1767225600, until: 1767312000, limit: 3, offset: 1 },
    '/api/rankings/payers?by=payments&since=1767225600&until=1767312000&limit=3&offset=1',
  ],
  ['get_rankings', { kind: 'services', by: 'distinct_payers', protocol: 'mpp' }, '/api/rankings/services?by=distinct_payers&protocol=mpp'],
  ['get_service_payments', { provider: seedDomain(1) }, `/api/payments?provider=${seedDomain(1)}`],
  [
    'get_service_payments',
    { service_id: 'a'.repeat(64), since: 1767225600 },
    `/api/payments?service_id=${'a'.repeat(64)}&since=1767225600`,
  ],
  [
    'get_provider',
    { domain: seedDomain(2), since: 1767225600, until: 1767312000 },
    `/api/providers/${seedDomain(2)}?since=1767225600&until=1767312000`,
  ],
];

const ERRORS: Case[] = [
  ['search_providers', { limit: 0 }, '/api/providers?limit=0'],
  ['search_providers', { check: 'maybe' }, '/api/providers?check=maybe'],
  ['get_provider', { domain: 'unknown.example' }, '/api/providers/unknown.example'],
  ['get_intelligence_status', { since: 1 }, '/api/intelligence/status?since=1'],
  ['get_service_offers', { limit: 101 }, '/api/intelligence/offers?limit=101'],
  ['get_service_changes', { since: 1793577600, until: 1793491200 }, '/api/intelligence/changes?since=1793577600&until=1793491200'],
  ['get_service_history', {}, '/api/intelligence/history'],
  ['search_transactions', { limit: 0 }, '/api/transactions?limit=0'],
  ['search_transactions', { offset: 1_000_001 }, '/api/transactions?offset=1000001'],
  ['search_transactions', { since: 1767312000, until: 1767225600 }, '/api/transactions?since=1767312000&until=1767225600'],
  ['search_transactions', { q: '<script>' }, '/api/transactions?q=%3Cscript%3E'],
  ['search_transactions', { wallet: '0x1' }, '/api/transactions?wallet=0x1'],
  ['get_transaction', { hash: '0x00' }, '/api/transactions/0x00'],
  ['get_transaction', { hash: `0x${'ab'.repeat(32)}` }, `/api/transactions/0x${'ab'.repeat(32)}`],
  ['get_metrics', { execution: 'maybe' }, '/api/metrics?execution=maybe'],
  ['get_metrics', { exclude: 'self_payment,bogus' }, '/api/metrics?exclude=self_payment,bogus'],
  ['get_rankings', { kind: 'services', exclude: 'self_funded' }, '/api/rankings/services?exclude=self_funded'],
  ['get_metrics_series', { bucket: 'week' }, '/api/metrics/series?bucket=week'],
  ['get_metrics_series', { split: 'payer' }, '/api/metrics/series?split=payer'],
  ['get_metrics_series', { since: 0, until: 1767312000 }, '/api/metrics/series?since=0&until=1767312000'],
  ['get_coverage', { x: 1 }, '/api/coverage?x=1'],
  ['get_status', { x: 1 }, '/api/status?x=1'],
  ['get_rankings', { kind: 'services', by: 'revenue' }, '/api/rankings/services?by=revenue'],
  ['get_rankings', { kind: 'recipients', limit: 101 }, '/api/rankings/recipients?limit=101'],
  ['get_service_payments', { service_id: 'XYZ' }, '/api/payments?service_id=XYZ'],
  ['get_service_payments', {}, '/api/payments'],
];

/** Comparisons made, per dialect (the closing note reports them). */
const compared: Record<string, number> = {};

describe.each(DIALECTS)('MCP tools equal their HTTP twins (%s)', (dialect) => {
  let seeded: SeededApp;
  let base: string;
  let hash: string;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: NOW });
    seeded = await startSeededApp(dialect);
    ({ base, hash } = seeded);
  });
  afterAll(async () => {
    await seeded?.close();
    vi.useRealTimers();
  });

  const call = async (name: string, args: Record<string, unknown>) => {
    const res = await fetch(`${base}/api/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    });
    expect(res.status).toBe(200);
    return CallToolResultSchema.parse(JSONRPCResultResponseSchema.parse(await res.json()).result);
  };
  const withHash = <T>(v: T): T => JSON.parse(JSON.stringify(v).replaceAll('HASH', hash));

  it('covers every tool with an answer and an error', () => {
    expect(new Set(ANSWERS.map((c) => c[0]))).toEqual(new Set(Object.keys(MCP_TOOLS)));
    expect(new Set(ERRORS.map((c) => c[0]))).toEqual(new Set(Object.keys(MCP_TOOLS)));
  });

  it.each(ANSWERS)('%s %j: structuredContent and text equal %s', async (name, args, path) => {
    const r = await call(name, withHash(args));
    const twin = await fetch(base + withHash(path));
    expect(twin.status).toBe(200);
    const body = await twin.json();
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual(body);
    expect(r.content).toHaveLength(1);
    expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual(body);
    compared[dialect] = (compared[dialect] ?? 0) + 1;
  });

  it.each(ERRORS)('%s %j: the tool error is the {error} of %s', async (name, args, path) => {
    const r = await call(name, withHash(args));
    const twin = await fetch(base + withHash(path));
    expect(twin.status).toBeGreaterThanOrEqual(400);
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual(await twin.json());
    compared[dialect] = (compared[dialect] ?? 0) + 1;
  });

  it('compared every case', () => {
    expect(compared[dialect]).toBe(ANSWERS.length + ERRORS.length);
  });
});

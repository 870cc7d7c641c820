/**
 * The public answers, byte for byte, over a fixed store: a deterministic synthetic chain (seedStore) and
 * provider intelligence (seedIntel), read at a pinned clock through the real app on both dialects. The recorded
 * file (`golden/answers.txt`) was written before the query layer was reorganised; a refactor that changes one
 * byte of a body, a status or a content type fails here. Answers are read over a real listener (MCP's transport
 * needs a real socket).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { seedDomain } from '../../src/seed/intel.js';
import { DIALECTS } from '../helpers/db.js';
import { type SeededApp, startSeededApp } from '../helpers/seeded-app.js';

const NOW = new Date('2026-11-20T12:00:00.000Z');

/** GET paths whose answers are recorded (errors included: their bodies are part of the contract too). */
const GETS = [
  '/api/status',
  '/api/coverage',
  '/api/transactions?limit=3',
  '/api/transactions?limit=3&offset=40',
  '/api/transactions?limit=5&asset=USDC.e',
  '/api/transactions?limit=5&execution=failed',
  '/api/transactions?limit=5&exchange=Uniswap%20v3',
  '/api/transactions?limit=5&q=0x20c0000000000000000000000000000000000e05',
  '/api/transactions?limit=4&since=1767226200&until=1767226800',
  '/api/transactions?limit=0',
  '/api/transactions?since=1767312000&until=1767225600',
  '/api/metrics',
  '/api/metrics?asset=EURC',
  '/api/metrics?since=1767226200&until=1767229200&execution=success',
  '/api/export?since=1767226200&until=1767226500',
  '/api/export?asset=EURC&until=1767227000',
  '/api/transactions/0x00',
  `/api/transactions/0x${'ab'.repeat(32)}`,
  '/api/providers',
  '/api/providers?q=weather&limit=3',
  `/api/providers/${seedDomain(1)}`,
  '/api/providers/unknown.example',
  '/api/intelligence/status',
  '/api/intelligence/offers?limit=4',
  `/api/intelligence/offers?domain=${seedDomain(2)}`,
  '/api/intelligence/changes?limit=5',
  '/api/intelligence/changes?since=1793577600&until=1793491200',
  '/api/intelligence/changes?since=1793491200&limit=3',
  `/api/intelligence/history?domain=${seedDomain(0)}&limit=3`,
  '/api/intelligence/history',
];

/** MCP tool calls (JSON-RPC over the stateless endpoint). */
const TOOLS: Array<[string, Record<string, unknown>]> = [
  ['search_providers', { q: 'search', limit: 2 }],
  ['get_provider', { domain: seedDomain(3) }],
  ['get_service_changes', { limit: 2 }],
  ['get_provider', { domain: 'unknown.example' }],
];

async function record(base: string, txHash: string): Promise<string> {
  const parts: string[] = [];
  for (const url of [...GETS, `/api/transactions/${txHash}`]) {
    const res = await fetch(base + url);
    parts.push(`### GET ${url}\n${res.status} ${res.headers.get('content-type')}\n${await res.text()}\n`);
  }
  for (const [i, [name, args]] of TOOLS.entries()) {
    const res = await fetch(`${base}/api/mcp`, {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name, arguments: args } }),
    });
    parts.push(`### MCP ${name} ${JSON.stringify(args)}\n${res.status}\n${await res.text()}\n`);
  }
  return parts.join('\n');
}

describe.each(DIALECTS)('public answers are unchanged (%s)', (dialect) => {
  let seeded: SeededApp;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: NOW });
    seeded = await startSeededApp(dialect, { publicUrl: 'https://paywatch.example', verifyUrl: 'https://verify.paywatch.example' });
  });
  afterAll(async () => {
    await seeded?.close();
    vi.useRealTimers();
  });

  it('every recorded answer is byte-identical', async () => {
    await expect(await record(seeded.base, seeded.hash)).toMatchFileSnapshot(`golden/answers-${dialect}.txt`);
  });
});

/**
 * The fixed answers of an MCP endpoint (`initialize`, `tools/list`), rendered and compressed once per request id
 * (src/mcp/jsonrpc.ts ToolTable.fixedAnswer): over a real listener, each encoding decodes to the answer of the id
 * and protocol version asked, with one ETag for every encoding and 304 on If-None-Match; and the table keeps each
 * rendering (the compressed bytes made once), a bounded number of them, none for an over-long id.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import {
  InitializeResultSchema,
  JSONRPCResultResponseSchema,
  LATEST_PROTOCOL_VERSION,
  ListToolsResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { type Answer, ToolTable } from '../../src/mcp/jsonrpc.js';
import { MCP_TOOLS } from '../../src/mcp/tools.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { postMcpRaw, type RawAnswer as Raw } from '../helpers/raw-mcp.js';

/** One POST to the listener on `port`. */
const post = (port: number, body: unknown, headers: Record<string, string>) => postMcpRaw(`http://127.0.0.1:${port}`, body, headers);

const decode = (r: Raw) => {
  const e = r.headers['content-encoding'];
  const text = (e === 'gzip' ? gunzipSync(r.body) : e === 'br' ? brotliDecompressSync(r.body) : r.body).toString('utf8');
  return JSON.parse(text) as Record<string, unknown>;
};

describe('MCP fixed answers over a real listener', () => {
  let t: TestDb;
  let store: Store;
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    t = await createTestDb('sqlite');
    store = await openStore(t.url);
    app = await buildApp({ store, config: loadConfig({ db: t.url }, {}), components: new Map() }, { logger: false });
    port = Number(new URL(await app.listen({ host: '127.0.0.1', port: 0 })).port);
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await t?.drop();
  });

  it('tools/list: every encoding decodes to the answer of the id asked, one ETag for all, 304 on If-None-Match', async () => {
    const list = (id: number | string, encoding: string) =>
      post(port, { jsonrpc: '2.0', id, method: 'tools/list', params: {} }, { 'accept-encoding': encoding });
    const plain = await list(7, 'identity');
    const gz = await list(7, 'gzip');
    const br = await list(7, 'br');
    const again = await list(7, 'gzip');
    expect([plain.status, gz.status, br.status]).toEqual([200, 200, 200]);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(br.headers['content-encoding']).toBe('br');
    expect(again.body.equals(gz.body)).toBe(true);
    expect(decode(gz)).toEqual(JSON.parse(plain.body.toString('utf8')));
    expect(decode(br)).toEqual(decode(gz));
    const answer = JSONRPCResultResponseSchema.parse(decode(gz));
    expect(answer.id).toBe(7);
    expect(ListToolsResultSchema.parse(answer.result).tools).toHaveLength(Object.keys(MCP_TOOLS).length);
    expect(String(plain.headers.etag)).toMatch(/^W\/"/);
    expect(gz.headers.etag).toBe(plain.headers.etag);
    expect(br.headers.etag).toBe(plain.headers.etag);
    expect(String(gz.headers.vary)).toMatch(/accept-encoding/i);
    const cached = await post(
      port,
      { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} },
      { 'accept-encoding': 'gzip', 'if-none-match': String(gz.headers.etag) },
    );
    expect(cached.status).toBe(304);

    // Another id is another answer (and another ETag), from the same table.
    const other = await list('eight', 'gzip');
    expect(JSONRPCResultResponseSchema.parse(decode(other)).id).toBe('eight');
    expect(other.headers.etag).not.toBe(gz.headers.etag);
    // An id too long to be kept is answered all the same.
    const long = 'x'.repeat(200);
    expect(JSONRPCResultResponseSchema.parse(decode(await list(long, 'gzip'))).id).toBe(long);
  });

  it('initialize: each protocol version asked gets its own answer, whatever was asked before with the same id', async () => {
    const init = (protocolVersion: string) =>
      post(
        port,
        {
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } },
        },
        { 'accept-encoding': 'gzip, br' },
      );
    for (const version of ['2025-06-18', '2025-03-26', '2025-06-18', '1999-01-01']) {
      const r = await init(version);
      expect(r.status).toBe(200);
      const answer = JSONRPCResultResponseSchema.parse(decode(r));
      expect(answer.id).toBe(0);
      const result = InitializeResultSchema.parse(answer.result);
      expect(result.protocolVersion).toBe(version === '1999-01-01' ? LATEST_PROTOCOL_VERSION : version);
      expect(result.capabilities.tools).toEqual({});
    }
  });
});

describe('ToolTable.fixedAnswer', () => {
  const table = new ToolTable({ name: 't', title: 'T', version: '1', instructions: 'i' }, []);
  const answer = (idText: string): Answer => ({
    text: `{"jsonrpc":"2.0","id":${idText},"result":${table.listResult}}`,
    tag: `tag:${idText}`,
    idText,
  });

  it('keeps one rendering per result and id (compressed forms made once on it), at most 64, none for an over-long id', () => {
    const a = table.fixedAnswer('list', answer('1'))!;
    expect(a.text).toBe(answer('1').text);
    a.encoded.gzip = Buffer.from('made once');
    expect(table.fixedAnswer('list', answer('1'))).toBe(a);
    expect(table.fixedAnswer('list', answer('2'))).not.toBe(a);
    expect(table.fixedAnswer('init:2025-06-18', answer('1'))).not.toBe(a);
    expect(table.fixedAnswer('list', answer(JSON.stringify('y'.repeat(41))))).toBeNull();
    for (let i = 0; i < 64; i++) table.fixedAnswer('list', answer(String(100 + i)));
    // The oldest renderings made room: the first one is made again.
    expect(table.fixedAnswer('list', answer('1'))).not.toBe(a);
    expect(table.fixedAnswer('list', answer('1'))!.text).toBe(a.text);
  });
});

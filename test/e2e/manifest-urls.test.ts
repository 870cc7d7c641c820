/**
 * The manifest names what really listens: `paywatch demo` and `paywatch start` as real child processes with default
 * flags except a temporary store and free ports (the demo's trust check on the free port it picks itself, `start`'s
 * on the port the OS picks for `--verify-port 0`), and every local URL the manifest names answers 2xx when called
 * as documented: documents by GET, the MCP endpoint by an MCP `initialize`, the trust check by a keyed check with a
 * key issued where its own OpenAPI document says. `start` gets a local anvil node as its RPC source so its collector
 * has a node to follow; the manifest does not depend on it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { startCli } from './cli.js';

/** A URL to check: not a loopback one (start refuses those), and it cannot resolve (the check completes as unreachable). */
const TARGET = 'https://paid.example.invalid/forecast';

interface Manifest {
  api: { base_url: string; openapi_url: string };
  mcp: { url: string };
  trust_check: { url: string; openapi_url: string };
}

/** Every string in `v` that is an absolute http(s) URL. */
function urlsIn(v: unknown, out = new Set<string>()): Set<string> {
  if (typeof v === 'string' && /^https?:\/\//.test(v)) out.add(v);
  else if (Array.isArray(v)) for (const x of v) urlsIn(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) urlsIn(x, out);
  return out;
}

/** Calls `url` the way the manifest says it is used, and returns the status of the answer (and the check's verdict). */
async function call(m: Manifest, url: string): Promise<{ status: number; verdict?: string }> {
  if (url === m.mcp.url) {
    const r = await fetch(url, {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'manifest-test', version: '1' } },
      }),
    });
    await r.text();
    return { status: r.status };
  }
  if (url === m.trust_check.url) {
    // A free key, issued where the trust check's own OpenAPI document says (the manifest names no access method).
    const doc = (await (await fetch(m.trust_check.openapi_url)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const keysPath = Object.entries(doc.paths).find(([, ops]) => ops.post?.operationId === 'issueApiKey')![0];
    const issued = await fetch(new URL(keysPath, m.trust_check.openapi_url), { method: 'POST' });
    expect(issued.status).toBe(201);
    const { key } = (await issued.json()) as { key: string };
    const r = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: TARGET }),
    });
    const body = (await r.json()) as { verdict?: string };
    return { status: r.status, verdict: body.verdict };
  }
  const r = await fetch(url);
  await r.arrayBuffer();
  return { status: r.status };
}

/** Fetches the manifest at `base` and calls every URL it names; all must be local and answer 2xx. */
async function expectEveryUrlAnswers(base: string): Promise<Manifest> {
  const r = await fetch(`${base}/.well-known/paywatch.json`);
  expect(r.status).toBe(200);
  const m = (await r.json()) as Manifest;
  const urls = [...urlsIn(m)];
  expect(urls.length).toBeGreaterThanOrEqual(5);
  for (const u of urls) {
    expect(new URL(u).hostname, u).toBe('127.0.0.1');
    const answer = await call(m, u);
    expect(answer.status, u).toBeGreaterThanOrEqual(200);
    expect(answer.status, u).toBeLessThan(300);
    if (u === m.trust_check.url) expect(answer.verdict, u).toBe('do_not_pay');
  }
  return m;
}

/** Waits until `text()` matches `re` or the process exits; returns the match. */
async function waitForOutput(text: () => string, re: RegExp, exited: () => boolean, what: string): Promise<RegExpExecArray> {
  for (;;) {
    const m = re.exec(text());
    if (m) return m;
    if (exited()) throw new Error(`the process exited before ${what}: ${text()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'paywatch-manifest-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('every URL the manifest names answers, as the process really listens', () => {
  it('paywatch demo: its trust check on the free port it chose, the one it prints', async () => {
    const port = await freePort();
    const { child, done } = startCli(['demo', '--db', `sqlite:${join(dir, 'demo.sqlite')}`, '--port', String(port)], {
      PAYWATCH_LOG_LEVEL: '',
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    let exited = false;
    void done.then(() => (exited = true));
    try {
      await waitForOutput(
        () => out,
        /Press Ctrl-C/,
        () => exited,
        'the demo was up',
      );
      const printed = /trust check on (\S+):/.exec(out)![1];
      const m = await expectEveryUrlAnswers(`http://127.0.0.1:${port}`);
      expect(m.trust_check.url).toBe(`${printed}/v1/check`);
      expect(new URL(printed).port).not.toBe('8081');
    } finally {
      child.kill('SIGINT');
      expect((await done).code).toBe(0);
    }
  }, 240_000);

  describe('paywatch start', () => {
    let anvil: AnvilNode;
    beforeAll(async () => {
      anvil = await startAnvil();
    }, 60_000);
    afterAll(async () => {
      await anvil?.stop();
    });

    it('its trust check on the port the OS chose for --verify-port 0', async () => {
      const port = await freePort();
      const { child, done } = startCli(
        ['start', '--db', `sqlite:${join(dir, 'start.sqlite')}`, '--rpc', anvil.rpcUrl, '--port', String(port), '--verify-port', '0'],
        { PAYWATCH_LOG_LEVEL: 'info' },
      );
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out += d));
      let exited = false;
      void done.then(() => (exited = true));
      try {
        // start logs where both listeners are once they listen.
        const listening = await waitForOutput(
          () => out,
          /trust check on (http:\/\/\S+)\/v1\/check/,
          () => exited,
          'start listened',
        );
        const m = await expectEveryUrlAnswers(`http://127.0.0.1:${port}`);
        expect(m.trust_check.url).toBe(`${listening[1]}/v1/check`);
        expect(new URL(listening[1]).port).not.toMatch(/^(0|8081)$/);
      } finally {
        child.kill('SIGTERM');
        expect((await done).code).toBe(0);
      }
    }, 120_000);
  });
});

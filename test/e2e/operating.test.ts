/**
 * Operating `paywatch start` as a real child process: it keeps serving (health, readiness, status) while its
 * node is unreachable and catches up once a real anvil node appears on that port; its Prometheus metrics, scraped
 * over HTTP and parsed with a Prometheus text-format parser, count what it did; on SIGTERM a request in flight
 * (a trust check of a slow real target) still gets its answer, new connections are refused, and it exits 0.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { startCli } from './cli.js';
import { finalizedHeight, rpcCall } from './rpc.js';

let anvil: AnvilNode | undefined;
let slow: Server | undefined;
const dir = mkdtempSync(join(tmpdir(), 'paywatch-operating-'));

afterAll(async () => {
  await anvil?.stop();
  slow?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Polls `url` until `ok(status, body)` holds or `give up` passes; @returns the last JSON body */
async function until(url: string, ok: (status: number, body: any) => boolean, ms = 60_000): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await fetch(url).then(
      async (x) => ({ status: x.status, body: await x.json().catch(() => null) }),
      () => null,
    );
    if (r && ok(r.status, r.body)) return r.body;
    if (Date.now() > deadline) throw new Error(`${url} never became ready: last ${JSON.stringify(r)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** The value of `name`'s series whose labels include `labels` (a number), or undefined. */
function sample(
  families: ReturnType<typeof parsePrometheusTextFormat>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const s = families.find((f) => f.name === name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return s?.value === undefined ? undefined : Number(s.value);
}

describe('paywatch start, operated', () => {
  it('serves while the node is down, catches up when it appears, exposes metrics, and drains a request in flight on SIGTERM', async () => {
    const [rpcPort, apiPort, verifyPort, metricsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const api = `http://127.0.0.1:${apiPort}`;
    const verify = `http://127.0.0.1:${verifyPort}`;
    const start = startCli(
      [
        'start',
        '--db',
        `sqlite:${join(dir, 's.sqlite')}`,
        '--rpc',
        `http://127.0.0.1:${rpcPort}`,
        '--from',
        '0',
        '--port',
        String(apiPort),
        '--verify-port',
        String(verifyPort),
        '--metrics-port',
        String(metricsPort),
        '--poll-interval-ms',
        '100',
      ],
      // No directory to read (a refused loopback source: no network in tests); checks may reach the local slow target.
      {
        PAYWATCH_SOURCES: 'none=mpp-registry:http://127.0.0.1:1/',
        PAYWATCH_VERIFY_ALLOW_LOOPBACK: '1',
        PAYWATCH_SHUTDOWN_GRACE_SECONDS: '10',
      },
    );
    try {
      // The node is unreachable: the process serves anyway and says why it is not collecting.
      const status = await until(`${api}/api/status`, (s, b) => s === 200 && b?.collector?.state === 'error');
      expect(status.collector.last_error).toMatch(/cannot reach the Tempo RPC/);
      for (const base of [api, verify]) {
        expect(await fetch(`${base}/healthz`).then((r) => r.json())).toEqual({ status: 'ok' });
        const ready = await fetch(`${base}/readyz`);
        expect(ready.status).toBe(200);
        expect(await ready.json()).toMatchObject({ status: 'ready', store: { ok: true } });
      }
      expect((await fetch(`${api}/readyz`).then((r) => r.json())).collector).toMatchObject({
        state: 'error',
        last_error: expect.stringMatching(/cannot reach/),
      });

      // The node appears on that port: the collector launches and catches up.
      anvil = await startAnvil({ port: rpcPort });
      await rpcCall(anvil.rpcUrl, 'anvil_mine', ['0x20']);
      const head = await finalizedHeight(anvil.rpcUrl);
      await until(`${api}/api/status`, (_s, b) => b?.checkpoint?.height === head && b?.collector?.state === 'running');

      const text = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text());
      const families = parsePrometheusTextFormat(text);
      expect(sample(families, 'paywatch_collector_height')).toBe(head);
      expect(sample(families, 'paywatch_collector_blocks_total')).toBe(head + 1); // blocks 0..head
      expect(sample(families, 'paywatch_collector_state', { state: 'running' })).toBe(1);
      expect(sample(families, 'paywatch_collector_lag_seconds')).toBeGreaterThanOrEqual(0);
      expect(sample(families, 'paywatch_rpc_errors_total')).toBeGreaterThan(0);
      expect(sample(families, 'paywatch_http_requests_total', { listener: 'api', route: '/api/status', status: '200' })).toBeGreaterThan(0);
      expect(sample(families, 'paywatch_http_requests_total', { listener: 'verify', route: '/healthz', status: '200' })).toBe(1);
      // The parser keeps a labelled histogram's buckets but not its labels or count: those are read from the text.
      expect(families.find((f) => f.name === 'paywatch_http_request_duration_seconds')?.type).toBe('HISTOGRAM');
      expect(text).toContain('paywatch_http_request_duration_seconds_count{listener="api",method="GET",route="/readyz",status="200"} 2');
      expect(sample(families, 'paywatch_store_heavy_reads')).toBe(0);
      expect(families.find((f) => f.name === 'paywatch_intel_probes_total')).toBeDefined();

      // SIGTERM with a trust check in flight against a target that answers after 1.5 s.
      slow = createServer((_req, res) => setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('free'), 1500));
      await new Promise<void>((r) => slow!.listen(0, '127.0.0.1', () => r()));
      const target = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/thing`;
      const { key } = (await fetch(`${verify}/v1/keys`, { method: 'POST' }).then((r) => r.json())) as { key: string };
      const inFlight = fetch(`${verify}/v1/check`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: target }),
      });
      await new Promise((r) => setTimeout(r, 500));
      start.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 300));
      await expect(fetch(`${api}/healthz`)).rejects.toThrow(); // no longer accepting
      const answered = await inFlight;
      expect(answered.status).toBe(200);
      expect((await answered.json()).verdict).toBeDefined();
      const done = await start.done;
      expect(done.code).toBe(0);
      expect(done.signal).toBeNull();
    } finally {
      start.child.kill('SIGKILL');
    }
  }, 180_000);
});

/**
 * `paywatch demo` as a person runs it: a real child process that starts anvil, generates activity, collects it
 * and serves the API; the printed URLs answer; the printed trust-check lines work as printed (a free key into KEY
 * and a keyed check, then a check paid with x402 by examples/pay-check.mjs, settled on the local chain); Ctrl-C
 * (SIGINT) stops everything it started. The demo's MPP service shows the payments the demo made after probing it
 * (memo_and_pay_to), and the paid check shows up as an x402 payment to the trust check (pay_to).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/chain/anvil.js';
import { startCli } from './cli.js';
import { rpcCall } from './rpc.js';

describe('paywatch demo', () => {
  it('serves collected activity at the printed URLs and stops everything on Ctrl-C', async () => {
    const port = await freePort();
    const metricsPort = await freePort();
    const { child, done } = startCli(['demo', '--port', String(port), '--metrics-port', String(metricsPort)], { PAYWATCH_LOG_LEVEL: '' });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    let exited = false;
    void done.then(() => (exited = true));
    while (!out.includes('Press Ctrl-C') && !exited) await new Promise((r) => setTimeout(r, 100));
    expect(exited).toBe(false);

    const rpcUrl = /anvil \(Tempo mode, chain id 4217\) on (\S+)/.exec(out)![1];
    const storePath = /store: sqlite:(\S+)/.exec(out)![1];
    const urls = [...out.matchAll(/curl -s '([^']+)'/g)].map((m) => m[1]);
    expect(urls[0]).toBe(`http://127.0.0.1:${port}/api/status`);
    const generated = Number(/serving (\d+) real Tempo transactions/.exec(out)![1]);
    expect(generated).toBeGreaterThan(10);

    const status = (await (await fetch(urls[0])).json()) as { total_transactions: number; collector: { state: string } };
    expect(status.total_transactions).toBe(generated);
    expect(['running', 'catching_up']).toContain(status.collector.state);
    for (const u of urls.slice(1)) expect((await fetch(u)).status, u).toBe(200);
    // `--metrics-port` starts its listener, with the collector's values.
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^paywatch_collector_height \d+$/m);
    expect(out).toMatch(new RegExp(`MCP \\(Streamable HTTP, read-only tools\\): http://127.0.0.1:${port}/api/mcp`));
    // The way to the real chain: the public endpoint and what is known of its limits.
    expect(out).toContain(
      'Against Tempo mainnet: paywatch start --rpc https://rpc.tempo.xyz (the default); its batch and rate limits are not published',
    );

    // The trust-check lines, run as printed by a shell from the project's folder.
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const keyLines = /get a free key into KEY, then check a URL with it:\n {2}(.+)\n {2}(.+)\n/.exec(out)!;
    const keyed = JSON.parse(execFileSync('bash', ['-c', `${keyLines[1]}; ${keyLines[2]}`], { cwd: root, encoding: 'utf8' })) as {
      verdict: string;
    };
    expect(['pay', 'caution', 'do_not_pay']).toContain(keyed.verdict);
    const paidLine = /\n {2}(node examples\/pay-check\.mjs .+)\n/.exec(out)![1];
    const paid = JSON.parse(execFileSync('bash', ['-c', paidLine], { cwd: root, encoding: 'utf8' })) as {
      status: number;
      verdict: string;
      payment_response: { success: boolean; transaction: string };
    };
    expect(paid.status).toBe(200);
    expect(paid.verdict).toBe(keyed.verdict);
    expect(paid.payment_response.success).toBe(true);
    expect(paid.payment_response.transaction).toMatch(/^0x[0-9a-f]{64}$/);

    // Payments joined to services: the demo probes its MPP service, then pays it twice with the mppx client.
    const providerUrl = urls.find((u) => /\/api\/providers\/[^/?]+$/.test(u))!;
    const { provider } = (await (await fetch(providerUrl)).json()) as { provider: { payments: Record<string, unknown> } };
    expect(provider.payments).toMatchObject({
      count: 2,
      by_method: { memo_and_pay_to: 2, memo: 0, pay_to: 0 },
      by_protocol: { mpp: { count: 2, nominal: '0.02' } },
      distinct_payers: 2,
      distinct_clients: 1,
      nominal: '0.02',
    });
    // The paid check settles to the trust check's payTo, which the demo's directory lists with an x402 offer on
    // Tempo: once collected, protocol x402, attribution pay_to, a listed-USD nominal.
    const verifyUrl = /trust check on (\S+):/.exec(out)![1];
    const checkPayments = `http://127.0.0.1:${port}/api/payments?provider=${encodeURIComponent(new URL(verifyUrl).host)}`;
    let check: Record<string, unknown> = {};
    for (let i = 0; i < 300 && check.count !== 1; i++) {
      check = ((await (await fetch(checkPayments)).json()) as { payments: Record<string, unknown> }).payments;
      if (check.count !== 1) await new Promise((r) => setTimeout(r, 100));
    }
    expect(check).toMatchObject({ count: 1, by_method: { pay_to: 1 }, by_protocol: { x402: { count: 1, nominal: '0.01' } } });
    const tx = (await (await fetch(`http://127.0.0.1:${port}/api/transactions/${paid.payment_response.transaction}`)).json()) as {
      protocol: string;
      nominal: string;
    };
    expect(tx).toMatchObject({ protocol: 'x402', nominal: '0.01' });

    child.kill('SIGINT');
    const r = await done;
    expect(r.code).toBe(0);
    // Everything it started is gone: the node, the listener, the temporary store.
    await expect(rpcCall(rpcUrl, 'eth_chainId')).rejects.toThrow();
    await expect(fetch(urls[0])).rejects.toThrow();
    expect(existsSync(storePath)).toBe(false);
  }, 240_000);
});

/**
 * startAnvil's watchdog: a process that started anvil and is then killed with SIGKILL (no chance to clean up,
 * as when a user kills `paywatch demo`) leaves no anvil behind; and stop() ends it as before.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { startAnvil } from '../../src/chain/anvil.js';

/** True while something answers eth_chainId at `url`. */
async function answers(url: string): Promise<boolean> {
  try {
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
    });
    return r.ok;
  } catch {
    return false;
  }
}

/** Polls until `url` stops answering; false when it still answers after `ms`. */
async function goesQuiet(url: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!(await answers(url))) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe('anvil never outlives the process that started it', () => {
  it('is gone after its parent is killed with SIGKILL', async () => {
    const holder = spawn(process.execPath, ['bin/run-ts.js', 'test/e2e/fixtures/hold-anvil.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    holder.stdout!.on('data', (d) => (out += d));
    while (!out.includes('\n')) await once(holder.stdout!, 'data');
    const url = out.trim();
    expect(await answers(url)).toBe(true);
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    expect(await goesQuiet(url, 10_000)).toBe(true);
  }, 60_000);

  it('stop() ends it', async () => {
    const node = await startAnvil();
    expect(await answers(node.rpcUrl)).toBe(true);
    await node.stop();
    expect(await answers(node.rpcUrl)).toBe(false);
  }, 60_000);
});

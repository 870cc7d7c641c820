/**
 * `paywatch start` (collector + API in one process) and `paywatch serve` (API only, another process on the same
 * store) as real child processes against a real anvil node: both answer, serve shows the collector state that
 * start records, and both stop cleanly (exit 0) on SIGTERM / SIGINT.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { startCli } from './cli.js';
import { finalizedHeight, rpcCall } from './rpc.js';

let anvil: AnvilNode;
let db: TestDb;
/** Commands started by the test, killed in afterAll when a failed assertion left them running (they hold ports). */
const started: { child: { exitCode: number | null; kill: (signal: NodeJS.Signals) => boolean } }[] = [];

beforeAll(async () => {
  anvil = await startAnvil();
  await rpcCall(anvil.rpcUrl, 'anvil_mine', ['0x20']);
  db = await createTestDb('sqlite');
}, 60_000);

afterAll(async () => {
  for (const p of started) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await anvil?.stop();
  await db?.drop();
});

type Status = { checkpoint: { height: number } | null; collector: { state: string; last_block: number | null } };

/** Polls GET url until `ok(body)` or the process exits. */
async function waitFor(url: string, ok: (s: Status) => boolean, exited: () => boolean): Promise<Status> {
  for (;;) {
    if (exited()) throw new Error(`process exited before ${url} was ready`);
    const s = await fetch(url).then(
      (r) => (r.ok ? (r.json() as Promise<Status>) : null),
      () => null,
    );
    if (s && ok(s)) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('paywatch start and serve', () => {
  it('collect and serve together, show the live and recorded collector, and stop cleanly on signals', async () => {
    const head = await finalizedHeight(anvil.rpcUrl);
    const [startPort, servePort] = [await freePort(), await freePort()];
    const start = startCli([
      'start',
      '--db',
      db.url,
      '--rpc',
      anvil.rpcUrl,
      '--from',
      '0',
      '--port',
      String(startPort),
      '--poll-interval-ms',
      '100',
    ]);
    started.push(start);
    let startExited = false;
    void start.done.then(() => (startExited = true));
    // The checkpoint is read from the store, the live state from the collector, which notes its write once the
    // writer thread has answered: a status read in between sees the new checkpoint with the previous last_block.
    const live = await waitFor(
      `http://127.0.0.1:${startPort}/api/status`,
      (s) => s.checkpoint?.height === head && s.collector?.last_block === head,
      () => startExited,
    );
    expect(live.collector).toMatchObject({ state: 'running', last_block: head });

    const serve = startCli(['serve', '--db', db.url, '--port', String(servePort)]);
    started.push(serve);
    let serveExited = false;
    void serve.done.then(() => (serveExited = true));
    const recorded = await waitFor(
      `http://127.0.0.1:${servePort}/api/status`,
      () => true,
      () => serveExited,
    );
    expect(recorded.checkpoint?.height).toBe(head);
    expect(recorded.collector.state).toMatch(/^(running|stalled)$/);

    // The running collector follows new finalized blocks.
    await rpcCall(anvil.rpcUrl, 'anvil_mine', ['0x5']);
    await waitFor(
      `http://127.0.0.1:${startPort}/api/status`,
      (s) => s.checkpoint?.height === head + 5,
      () => startExited,
    );

    start.child.kill('SIGTERM');
    serve.child.kill('SIGINT');
    const [a, b] = await Promise.all([start.done, serve.done]);
    expect(a.code).toBe(0);
    expect(a.stderr).toBe('');
    expect(b.code).toBe(0);
    expect(b.stderr).toBe('');
  }, 180_000);
});

/**
 * The real `paywatch` command refuses bad setups with a non-zero exit and a one-line message: a bad flag, an
 * unreachable RPC, a node on another chain (a real anvil started with --chain-id 31337), an unreachable
 * PostgreSQL, and a second collector on a store another collector holds (SQLite and PostgreSQL).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anvilBinary, freePort, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { openStore } from '../../src/store/db.js';
import { getCheckpoint } from '../../src/store/chain/index.js';
import { createTestDb, DIALECTS, type TestDb } from '../helpers/db.js';
import { runCli, startCli, type CliResult } from './cli.js';
import { rpcCall } from './rpc.js';

const dbs: TestDb[] = [];
let anvil: AnvilNode;

async function freshDb(dialect: (typeof DIALECTS)[number] = 'sqlite'): Promise<TestDb> {
  const db = await createTestDb(dialect);
  dbs.push(db);
  return db;
}

/** The message a failed command printed: exactly one `paywatch: …` line on stderr, no stack trace. */
function oneLineError(r: CliResult): string {
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^paywatch: /);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return lines[0];
}

beforeAll(async () => {
  anvil = await startAnvil();
  await rpcCall(anvil.rpcUrl, 'anvil_mine', ['0x10']);
}, 60_000);

afterAll(async () => {
  await anvil?.stop();
  for (const db of dbs) await db.drop();
});

describe('paywatch exits non-zero with a one-line message', () => {
  it('for an unknown flag', async () => {
    const r = await runCli(['collect', '--no-such-flag']);
    expect(r.code).not.toBe(0);
    expect(oneLineError(r)).toContain("unknown option '--no-such-flag'");
  });

  it('for a flag the command does not use (a listener port on collect, a node URL on an operator command)', async () => {
    const collect = await runCli(['collect', '--port', '1']);
    expect(collect.code).not.toBe(0);
    expect(oneLineError(collect)).toContain("unknown option '--port'");
    const operator = await runCli(['operator', 'token', 'list', '--rpc', 'http://127.0.0.1:1']);
    expect(operator.code).not.toBe(0);
    expect(oneLineError(operator)).toContain("unknown option '--rpc'");
  });

  it('for a token list that cannot be read or is not a token list, on every command that takes one', async () => {
    const db = await freshDb();
    const dir = mkdtempSync(join(tmpdir(), 'paywatch-badlist-'));
    try {
      const bad = join(dir, 'list.json');
      writeFileSync(bad, JSON.stringify({ name: 'x', tokens: [] }));
      for (const args of [
        ['serve', '--port', '0'],
        ['collect', '--once', '--rpc', 'http://127.0.0.1:1'],
        ['seed', '--count', '1'],
      ]) {
        const missing = await runCli([...args, '--db', db.url, '--tokenlist', join(dir, 'missing.json')]);
        expect(missing.code, args[0]).not.toBe(0);
        expect(oneLineError(missing), args[0]).toMatch(/cannot read token list .*missing\.json: ENOENT/);
        const invalid = await runCli([...args, '--db', db.url], { PAYWATCH_TOKENLIST: bad });
        expect(invalid.code, args[0]).not.toBe(0);
        expect(oneLineError(invalid), args[0]).toMatch(/token list .*list\.json is not a valid token list: \/ must have required property/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('for a bad flag value', async () => {
    const db = await freshDb();
    const r = await runCli(['collect', '--once', '--db', db.url, '--rpc', anvil.rpcUrl, '--batch-size', 'many']);
    expect(r.code).toBe(2);
    expect(oneLineError(r)).toBe('paywatch: invalid --batch-size: Invalid input: expected number, received NaN');
  });

  it('for an unreachable RPC', async () => {
    const db = await freshDb();
    const port = await freePort();
    const r = await runCli(['collect', '--once', '--db', db.url, '--rpc', `http://127.0.0.1:${port}`]);
    expect(r.code).toBe(1);
    expect(oneLineError(r)).toContain(`cannot reach the Tempo RPC at http://127.0.0.1:${port}`);
  });

  it('for a node on another chain', async () => {
    const port = await freePort();
    const other = spawn(anvilBinary(), ['--chain-id', '31337', '--host', '127.0.0.1', '--port', String(port), '--silent'], {
      stdio: 'ignore',
    });
    try {
      const url = `http://127.0.0.1:${port}`;
      for (let i = 0; i < 300; i++) {
        if (
          await rpcCall(url, 'eth_chainId').then(
            () => true,
            () => false,
          )
        )
          break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const db = await freshDb();
      const r = await runCli(['collect', '--once', '--db', db.url, '--rpc', url]);
      expect(r.code).toBe(1);
      expect(oneLineError(r)).toBe(
        `paywatch: the node at ${url} reports chain id 31337, not 4217 (Tempo mainnet); paywatch only collects chain 4217`,
      );
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('for an unreachable PostgreSQL', async () => {
    const port = await freePort();
    const r = await runCli(['collect', '--once', '--db', `postgres://postgres:secret@127.0.0.1:${port}/paywatch`, '--rpc', anvil.rpcUrl]);
    expect(r.code).toBe(1);
    const line = oneLineError(r);
    expect(line).toContain(`cannot reach PostgreSQL at postgres://postgres:***@127.0.0.1:${port}/paywatch`);
    expect(line).not.toContain('secret');
  });

  it.each(DIALECTS)(
    'for a second collector on the same %s store, and the first stops cleanly on SIGTERM',
    async (dialect) => {
      const db = await freshDb(dialect);
      const first = startCli(['collect', '--db', db.url, '--rpc', anvil.rpcUrl, '--from', '0', '--poll-interval-ms', '100']);
      try {
        // Wait until the first collector has written (so it holds the lock and is past start-up).
        const reader = await openStore(db.url);
        try {
          for (;;) {
            if (await getCheckpoint(reader).catch(() => null)) break;
            await new Promise((r) => setTimeout(r, 20));
          }
        } finally {
          await reader.close();
        }
        const second = await runCli(['collect', '--once', '--db', db.url, '--rpc', anvil.rpcUrl]);
        expect(second.code).toBe(1);
        const line = oneLineError(second);
        if (dialect === 'sqlite') expect(line).toContain(`another collector (pid ${first.child.pid}) holds the store sqlite:`);
        else expect(line).toMatch(/another collector \(PostgreSQL session pid \d+\) holds the store postgres:\/\//);
      } finally {
        first.child.kill('SIGTERM');
      }
      const r = await first.done;
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      // Released: a new collector can take the store at once.
      const again = await runCli(['collect', '--once', '--db', db.url, '--rpc', anvil.rpcUrl]);
      expect(again.code).toBe(0);
    },
    120_000,
  );
});

/**
 * How the real `paywatch` command starts: from the bundle of the compiled JavaScript in dist/ (never tsx), loading only the
 * command that runs (`--help` loads none), with `--version`; `collect --once` on a store at the finalized head
 * checks the node and records its state without loading the collector (a real anvil node). Module loads are recorded by a real module resolve
 * hook (node:module register) in the child process.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { getCheckpoint, getCollectorState } from '../../src/store/chain/index.js';
import { openStore } from '../../src/store/db.js';
import { commandNamed } from '../../src/cli/main.js';
import { commands } from '../../src/cli/commands/index.js';
import { BIN, runCli } from './cli.js';
import { finalizedHeight, rpcCall } from './rpc.js';

/** A resolve hook that writes every resolved module URL to stderr, one per line, prefixed with `loaded `. */
const HOOK = `data:text/javascript,${encodeURIComponent(`
import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  writeSync(2, 'loaded ' + r.url + '\\n');
  return r;
}`)}`;
const REGISTER = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(HOOK)});`)}`;

const ROOT = new URL('../../', import.meta.url).href;
/** esbuild's record of the bundle (scripts/bundle.mjs): the compiled modules each of its files holds. */
const BUNDLE = JSON.parse(readFileSync(new URL('../../dist/bundle/meta.json', import.meta.url), 'utf8')) as {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
};

/** `urls` with each file of the bundle replaced by the URLs of the compiled modules it holds. */
function unbundled(urls: string[]): string[] {
  return urls.flatMap((u) => {
    const out = u.startsWith(ROOT) ? BUNDLE.outputs[u.slice(ROOT.length)] : undefined;
    return out ? Object.keys(out.inputs).map((i) => ROOT + i) : [u];
  });
}

/**
 * Runs `paywatch ARGS` and returns its exit code, stdout, the files it loaded and the module URLs they hold (a
 * bundle file stands for the compiled modules in it, so a command's own modules count as in the tree tsc wrote).
 */
function run(args: string[]): { status: number | null; stdout: string; files: string[]; loaded: string[] } {
  const r = spawnSync(process.execPath, ['--import', REGISTER, BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, PAYWATCH_FROM_SOURCE: '' },
  });
  const loaded = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('loaded '))
    .map((l) => l.slice(7));
  return { status: r.status, stdout: r.stdout, files: loaded, loaded: unbundled(loaded) };
}

const ours = (urls: string[]) => urls.filter((u) => u.startsWith('file:') && !u.includes('/node_modules/'));

describe('paywatch start-up', () => {
  it('prints the package version with --version and -V', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const r = run([flag]);
      expect(r.status).toBe(0);
      expect(r.stdout.trim()).toBe(version);
    }
  });

  it('lists every command in --help without loading any command module, from dist/ and without tsx', () => {
    const r = run(['--help']);
    expect(r.status).toBe(0);
    for (const c of commands)
      expect(r.stdout).toMatch(new RegExp(`^  ${c.name}\\b.*${c.description.slice(0, 20).replace(/[()]/g, '\\$&')}`, 'm'));
    const mine = ours(r.loaded);
    expect(mine.some((u) => u.endsWith('/dist/cli/main.js'))).toBe(true);
    expect(mine.filter((u) => u.includes('/src/'))).toEqual([]);
    expect(r.loaded.filter((u) => u.includes('/tsx/'))).toEqual([]);
    expect(mine.filter((u) => /\/cli\/commands\/(?!index)/.test(u))).toEqual([]);
  });

  it('loads only the chosen command: collect --help does not load the trust check or the API', () => {
    const r = run(['collect', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/--once/);
    const mine = ours(r.loaded);
    expect(mine.some((u) => u.endsWith('/dist/cli/commands/collect.js'))).toBe(true);
    expect(mine.filter((u) => /\/cli\/commands\/(?!index|collect)/.test(u) || /\/dist\/(trust|api)\//.test(u))).toEqual([]);
  });

  it('finds the command in argv', () => {
    expect(commandNamed(['collect', '--once'])).toBe('collect');
    expect(commandNamed(['help', 'serve'])).toBe('serve');
    expect(commandNamed(['--help'])).toBeUndefined();
  });
});

describe('collect --once with nothing to do', () => {
  let node: AnvilNode;
  let dir: string;
  beforeAll(async () => {
    node = await startAnvil();
    await rpcCall(node.rpcUrl, 'anvil_mine', ['0x20']);
    dir = mkdtempSync(join(tmpdir(), 'paywatch-caught-up-'));
  }, 60_000);
  afterAll(async () => {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records the stopped state without loading the collector, and a later run collects new blocks', async () => {
    const db = `sqlite:${join(dir, 's.sqlite')}`;
    const args = ['collect', '--once', '--db', db, '--rpc', node.rpcUrl, '--from', '1'];
    expect((await runCli(args)).code).toBe(0);
    const head = await finalizedHeight(node.rpcUrl);
    const store = await openStore(db);
    try {
      expect((await getCheckpoint(store))?.height).toBe(head);
      const before = (await getCollectorState(store))!;
      const r = run(args);
      expect(r.status).toBe(0);
      expect(ours(r.loaded).filter((u) => /\/dist\/chain\/(decode\/|collector\/(index|collector)\.js)/.test(u))).toEqual([]);
      const after = (await getCollectorState(store))!;
      expect(after).toMatchObject({ state: 'stopped', last_block: head, finalized_head: head, last_error: null });
      expect(after.updated_at > before.updated_at).toBe(true);
      await rpcCall(node.rpcUrl, 'anvil_mine', ['0x3']);
      const newHead = await finalizedHeight(node.rpcUrl);
      expect(newHead).toBeGreaterThan(head);
      expect((await runCli(args)).code).toBe(0);
      expect((await getCheckpoint(store))?.height).toBe(newHead);
    } finally {
      await store.close();
    }
  }, 60_000);
});

/**
 * The V8 flags of src/cli/node-flags.ts reach every way paywatch is started: bin/paywatch.js's shebang (what
 * `npx paywatch` runs) and the npm scripts that start it or the benchmarks; and the shebang really starts node
 * with them.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NODE_FLAGS } from '../../src/cli/node-flags.js';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

describe('paywatch node flags', () => {
  it('are in the shebang and in the start, demo and bench scripts', () => {
    expect(read('bin/paywatch.js').split('\n')[0]).toBe(`#!/usr/bin/env -S node ${NODE_FLAGS.join(' ')}`);
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    for (const name of ['start', 'demo', 'bench']) expect(scripts[name]).toMatch(new RegExp(`^node ${NODE_FLAGS.join(' ')} bin/`));
  });

  it('are what node runs with when the shebang starts it', () => {
    // env -S splits the shebang's arguments; node reports them (then -e and its code) in process.execArgv.
    const shebang = read('bin/paywatch.js').split('\n')[0].slice(2).split(' ');
    const out = execFileSync(shebang[0], [...shebang.slice(1), '-e', 'process.stdout.write(JSON.stringify(process.execArgv))'], {
      encoding: 'utf8',
    });
    expect((JSON.parse(out) as string[]).slice(0, NODE_FLAGS.length)).toEqual([...NODE_FLAGS]);
  });
});

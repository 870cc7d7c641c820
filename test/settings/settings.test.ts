/**
 * The one table of settings (src/settings/index.ts): the README's Configuration table is it; a bad value is
 * reported by the flag or variable the user typed; flags beat variables, which beat defaults; and every command
 * takes the flags it took before the table, each listed by `--help` with its variable and default.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { helpLine } from '../../src/cli/options.js';
import { configFrom } from '../../src/cli/run.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { COMMANDS, type CommandName, SETTING_KEYS, SETTINGS, type Setting, type SettingKey, flagName } from '../../src/settings/index.js';
import { currentTable, DOC_TABLES, tableCells } from '../../scripts/doc-tables.js';

const table = DOC_TABLES.find((t) => t.name === 'settings')!;
const readme = readFileSync(new URL(`../../${table.file}`, import.meta.url), 'utf8');

describe("the README's Configuration table", () => {
  it('is the settings table (npm run docs:tables rewrites it)', () => {
    expect(currentTable(readme, table)).toBe(table.render());
  });

  it('has one row per setting, naming its variable and flag', () => {
    const rows = tableCells(currentTable(readme, table));
    expect(rows).toHaveLength(SETTING_KEYS.length);
    SETTING_KEYS.forEach((k, i) => {
      const [flag, env] = rows[i]!.slice(0, 2).map((c) => c.replace(/`/g, ''));
      expect(env, k).toBe(SETTINGS[k].env);
      expect(flag, k).toBe(flagName(k) ?? '');
    });
  });
});

describe('a bad setting', () => {
  it('is named by the flag the user typed', () => {
    expect(() => loadConfig({ port: 'eighty' }, {})).toThrow(
      new ConfigError('invalid --port: Invalid input: expected number, received NaN'),
    );
    expect(() => loadConfig({ rpcUrl: 'ftp://node' }, {})).toThrow(/^invalid --rpc: /);
    expect(() => loadConfig({ trustProxy: 'true' }, {})).toThrow(/^invalid --trust-proxy: .*"true" is refused/);
    // Commander's option names (camelCase, `--rpc` → rpc, `--tokenlist` → tokenlist) reach the same setting.
    expect(() => configFrom({ rpc: 'not a url' })).toThrow(/^invalid --rpc: /);
    expect(() => configFrom({ batchSize: '0' })).toThrow(/^invalid --batch-size: Too small: expected number to be >=1$/);
  });

  it('is named by the variable the user set', () => {
    expect(() => loadConfig({}, { PAYWATCH_RATE_LIMIT: 'lots' })).toThrow(
      new ConfigError('invalid PAYWATCH_RATE_LIMIT: Invalid input: expected number, received NaN'),
    );
    expect(() => loadConfig({}, { PORT: '70000' })).toThrow(/^invalid PORT: Too big/);
    expect(() => loadConfig({}, { PAYWATCH_X402_PAY_TO: '0x12' })).toThrow(/^invalid PAYWATCH_X402_PAY_TO: must be a 0x address/);
  });

  it('names, of two settings that disagree, the one the user set', () => {
    expect(() => loadConfig({}, { PAYWATCH_HEADERS_TIMEOUT_SECONDS: '40' })).toThrow(
      new ConfigError('invalid PAYWATCH_HEADERS_TIMEOUT_SECONDS: must be at most PAYWATCH_REQUEST_TIMEOUT_SECONDS (30 s)'),
    );
    expect(() => loadConfig({}, { PAYWATCH_REQUEST_TIMEOUT_SECONDS: '5' })).toThrow(
      new ConfigError('invalid PAYWATCH_REQUEST_TIMEOUT_SECONDS: must be at least PAYWATCH_HEADERS_TIMEOUT_SECONDS (10 s)'),
    );
    expect(() => loadConfig({ db: './x.sqlite', dbRead: 'postgres://replica/x' }, {})).toThrow(
      new ConfigError('invalid --db-read: needs a PostgreSQL --db (postgres://…); a SQLite store is read from its own file'),
    );
  });

  it('never names an internal key', () => {
    for (const k of SETTING_KEYS) {
      if (k === 'secret' || k === 'secretFile' || k === 'db' || k === 'host' || k === 'metricsHost') continue; // any text goes
      if (SETTINGS[k].schema.safeParse('\u0000not valid\u0000').success) continue;
      let message = '';
      try {
        loadConfig({}, { [SETTINGS[k].env]: '\u0000not valid\u0000' });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message, k).toMatch(new RegExp(`^invalid ${SETTINGS[k].env}: `));
    }
  });
});

describe('the finality settings', () => {
  it('read witnesses repeated on the command line or space-separated in the environment, and refuse bad ones', async () => {
    expect(loadConfig({}, {}).witnesses).toEqual([]);
    expect(loadConfig({}, {}).consensusEpochLength).toBe(21_600);
    expect(loadConfig({}, { PAYWATCH_WITNESSES: ' https://a.example  https://k:s@b.example/v2 ' }).witnesses).toEqual([
      'https://a.example',
      'https://k:s@b.example/v2',
    ]);
    const cmd = new Command('collect');
    (await commands.find((c) => c.name === 'collect')!.load()).register(cmd);
    cmd.exitOverride().action(() => {});
    cmd.parse(['--witness', 'https://a.example', '--witness', 'https://b.example', '--witness-quorum', '1'], { from: 'user' });
    const config = configFrom(cmd.opts());
    expect(config.witnesses).toEqual(['https://a.example', 'https://b.example']);
    expect(config.witnessQuorum).toBe(1);
    expect(() => loadConfig({}, { PAYWATCH_WITNESSES: 'ftp://a.example' })).toThrow(/^invalid PAYWATCH_WITNESSES: /);
    expect(() => loadConfig({ consensusGenesis: '0xabc' }, {})).toThrow(/^invalid --consensus-genesis: must be hex bytes/);
  });
});

describe('where a value comes from', () => {
  it('takes the flag over the variable over the default, and an empty variable as unset', () => {
    expect(loadConfig({}, {}).rateLimitPerMinute).toBe(SETTINGS.rateLimitPerMinute.default);
    expect(loadConfig({}, { PAYWATCH_RATE_LIMIT: '7' }).rateLimitPerMinute).toBe(7);
    expect(loadConfig({}, { PAYWATCH_RATE_LIMIT: '' }).rateLimitPerMinute).toBe(600);
    expect(loadConfig({ port: '9000' }, { PORT: '9100' }).port).toBe(9000);
    expect(loadConfig({ port: '9000' }, { PORT: 'bad' }).port).toBe(9000);
  });

  it('gives every setting a default its schema accepts', () => {
    const config = loadConfig({}, {});
    expect(Object.keys(config)).toEqual(SETTING_KEYS);
  });
});

/** The flags each command took before the settings table (its `--help`, long names), held unchanged. */
const FLAGS: Record<string, string[]> = {
  start: [
    '--db',
    '--db-read',
    '--redis',
    '--rpc',
    '--port',
    '--host',
    '--trust-proxy',
    '--metrics-port',
    '--metrics-host',
    '--from',
    '--tokenlist',
    '--log-level',
    '--batch-size',
    '--rpc-concurrency',
    '--rpc-batch-calls',
    '--rpc-rate',
    '--poll-interval-ms',
    '--retain-days',
    '--consensus-rpc',
    '--consensus-genesis',
    '--consensus-epoch-length',
    '--witness',
    '--witness-quorum',
    '--verify-port',
  ],
  collect: [
    '--db',
    '--rpc',
    '--metrics-port',
    '--metrics-host',
    '--from',
    '--tokenlist',
    '--log-level',
    '--batch-size',
    '--rpc-concurrency',
    '--rpc-batch-calls',
    '--rpc-rate',
    '--poll-interval-ms',
    '--retain-days',
    '--consensus-rpc',
    '--consensus-genesis',
    '--consensus-epoch-length',
    '--witness',
    '--witness-quorum',
    '--once',
    '--retry-quarantined',
  ],
  serve: [
    '--db',
    '--db-read',
    '--redis',
    '--rpc',
    '--port',
    '--host',
    '--trust-proxy',
    '--metrics-port',
    '--metrics-host',
    '--tokenlist',
    '--log-level',
  ],
  demo: [
    '--db',
    '--rpc',
    '--port',
    '--host',
    '--trust-proxy',
    '--metrics-port',
    '--metrics-host',
    '--from',
    '--tokenlist',
    '--log-level',
    '--batch-size',
    '--rpc-concurrency',
    '--rpc-batch-calls',
    '--rpc-rate',
    '--poll-interval-ms',
    '--retain-days',
    '--consensus-rpc',
    '--consensus-genesis',
    '--consensus-epoch-length',
    '--witness',
    '--witness-quorum',
    '--verify-port',
  ],
  seed: ['--db', '--tokenlist', '--log-level', '--count', '--seed', '--start-height'],
  verify: [
    '--db',
    '--redis',
    '--rpc',
    '--host',
    '--trust-proxy',
    '--metrics-port',
    '--metrics-host',
    '--tokenlist',
    '--log-level',
    '--verify-port',
  ],
  'intel collect': ['--db', '--log-level', '--once', '--sources', '--allow-loopback'],
  'intel verify-archive': ['--db', '--log-level'],
  'integrity verify': ['--db', '--log-level', '--consensus-genesis', '--consensus-epoch-length', '--from', '--to'],
  compact: ['--db', '--log-level', '--into', '--full'],
  'operator connection create': ['--db', '--log-level', '--json', '--secret-file', '--protocol', '--name', '--env'],
  'operator connection list': ['--db', '--log-level', '--json'],
  'operator connection rotate': ['--db', '--log-level', '--json', '--secret-file', '--grace'],
  'operator connection revoke': ['--db', '--log-level', '--json'],
  'operator producer enroll': ['--db', '--log-level', '--json', '--secret-file', '--name', '--env'],
  'operator producer list': ['--db', '--log-level', '--json'],
  'operator producer rotate': ['--db', '--log-level', '--json', '--secret-file', '--grace'],
  'operator producer revoke': ['--db', '--log-level', '--json'],
  'operator token create': ['--db', '--log-level', '--json', '--name'],
  'operator token list': ['--db', '--log-level', '--json'],
  'operator token revoke': ['--db', '--log-level', '--json'],
  'operator events list': ['--db', '--log-level', '--json', '--env', '--since', '--until', '--limit', '--offset'],
  'operator outcomes list': ['--db', '--log-level', '--json', '--env', '--since', '--until', '--limit', '--offset'],
  'operator costs': ['--db', '--log-level', '--json', '--env', '--since', '--until', '--period'],
  'operator key create': ['--db', '--log-level', '--json', '--plan', '--label'],
  'operator key list': ['--db', '--log-level', '--json'],
  'operator key revoke': ['--db', '--log-level', '--json'],
  'operator usage': ['--db', '--log-level', '--json', '--month', '--key', '--plan'],
};

/** Every leaf command under `cmd` by its path (`operator token list`), with its commander options. */
function leaves(cmd: Command, path: string[] = []): Map<string, Command> {
  const out = new Map<string, Command>();
  if (cmd.commands.length === 0) out.set(path.join(' '), cmd);
  for (const c of cmd.commands) for (const [k, v] of leaves(c, [...path, c.name()])) out.set(k, v);
  return out;
}

describe('the flags of each command', () => {
  it('are the ones each command took before, each with its variable and default in --help', async () => {
    const found = new Map<string, Command>();
    for (const entry of commands) {
      const cmd = new Command(entry.name);
      (await entry.load()).register(cmd);
      for (const [path, leaf] of leaves(cmd, [entry.name])) found.set(path, leaf);
    }
    expect([...found.keys()].sort()).toEqual(Object.keys(FLAGS).sort());
    for (const [path, leaf] of found) {
      expect(leaf.options.map((o) => o.long).sort(), path).toEqual([...FLAGS[path]!].sort());
      for (const o of leaf.options) {
        // A command's own flag may share a setting's name (`integrity verify --from`): only the setting's flag is checked.
        const own = (k: SettingKey) =>
          (COMMANDS as readonly string[]).includes(path) && !(SETTINGS[k] as Setting).commands?.includes(path as CommandName);
        const key = SETTING_KEYS.find((k) => flagName(k) === o.long && !own(k));
        if (key) expect(o.description, `${path} ${o.long}`).toBe(helpLine(key));
      }
    }
  }, 60_000);

  it('say in --help where else the value can come from', () => {
    expect(helpLine('port')).toBe('public API port (env PORT; default 8080)');
    expect(helpLine('redis')).toBe(
      'Redis (redis:// or rediss://) shared by every replica for per-client limits (env PAYWATCH_REDIS_URL; default none: limits counted per process)',
    );
  });
});

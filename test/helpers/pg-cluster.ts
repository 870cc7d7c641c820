/**
 * A throwaway PostgreSQL primary and its streaming replica, each a real server of its own (initdb, then
 * pg_basebackup -R from the primary), on free loopback ports under temp directories, so tests can stop, restart
 * and pause them without touching the machine's main cluster. As root the servers run as the `postgres` OS user
 * (initdb and postgres refuse root). Binaries: PAYWATCH_PG_BIN or the newest /usr/lib/postgresql/N/bin.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The newest installed server's tools (Debian layout), unless PAYWATCH_PG_BIN names them. */
const BIN =
  process.env.PAYWATCH_PG_BIN ??
  join(
    '/usr/lib/postgresql',
    readdirSync('/usr/lib/postgresql')
      .sort((a, b) => Number(a) - Number(b))
      .at(-1) ?? '15',
    'bin',
  );
const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL tool, as the postgres OS user when we are root. */
function tool(name: string, args: string[]): string {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(BIN, name), ...args]] : [join(BIN, name), args];
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs a PostgreSQL tool without blocking the event loop (load keeps flowing meanwhile). */
async function toolAsync(name: string, args: string[]): Promise<void> {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(BIN, name), ...args]] : [join(BIN, name), args];
  await promisify(execFile)(cmd, argv, { encoding: 'utf8' });
}

/** A free TCP port on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

/** One server of the pair. */
export interface PgServer {
  port: number;
  /** Data directory (also its socket directory). */
  dir: string;
  /** A connection URL for database `db` on this server. */
  url(db?: string): string;
  /** Stops it: `fast` (clean) or `immediate` (as a crash); waits until it is down. */
  stop(mode?: 'fast' | 'immediate'): void;
  /** Starts it and waits until it accepts connections. */
  start(): void;
  /**
   * Restarts it as `pg_ctlcluster … restart` does (pg_ctl restart -m fast: sessions are ended, then the server
   * comes back), without blocking the event loop; resolves when it accepts connections again.
   */
  restart(): Promise<void>;
}

function server(dir: string, port: number): PgServer {
  const log = join(dir, 'server.log');
  return {
    port,
    dir,
    url: (db = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${db}`,
    stop: (mode = 'fast') => void tool('pg_ctl', ['-D', dir, '-m', mode, '-w', 'stop']),
    start: () => void tool('pg_ctl', ['-D', dir, '-l', log, '-w', '-t', '60', 'start']),
    restart: () => toolAsync('pg_ctl', ['-D', dir, '-l', log, '-m', 'fast', '-w', '-t', '60', 'restart']),
  };
}

/** A primary and its streaming replica. */
export interface PgPair {
  primary: PgServer;
  replica: PgServer;
  /** Creates database `name` on the primary (replicated to the replica) and returns its name. */
  createDb(name: string): Promise<string>;
  /** Pauses (`true`) or resumes WAL replay on the replica (pg_wal_replay_pause / _resume). */
  setReplayPaused(paused: boolean): Promise<void>;
  /** Waits until the replica has replayed everything the primary has written so far (up to `ms`). */
  waitCaughtUp(ms?: number): Promise<void>;
  /** Stops both servers and deletes their directories. */
  destroy(): void;
}

async function query(url: string, text: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(text);
  } finally {
    await c.end();
  }
}

/**
 * Creates and starts a primary (wal_level=replica, replication allowed from 127.0.0.1 with trust) and a replica
 * made from it by pg_basebackup -R, streaming from it.
 */
export async function createPgPair(): Promise<PgPair> {
  const root = mkdtempSync(join(tmpdir(), 'paywatch-pgpair-'));
  const pdir = join(root, 'primary');
  const rdir = join(root, 'replica');
  const [pport, rport] = [await freePort(), await freePort()];
  if (asRoot) execFileSync('chown', [`postgres:postgres`, root]);
  tool('initdb', ['-D', pdir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  const conf = (dir: string, port: number) =>
    `\nport = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${dir}'\nwal_level = replica\nmax_wal_senders = 5\nhot_standby = on\nfsync = off\nfull_page_writes = on\nshared_buffers = 32MB\nmax_connections = 60\n`;
  appendFileSync(join(pdir, 'postgresql.conf'), conf(pdir, pport));
  appendFileSync(join(pdir, 'pg_hba.conf'), '\nhost replication all 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 trust\n');
  const primary = server(pdir, pport);
  primary.start();
  tool('pg_basebackup', ['-h', '127.0.0.1', '-p', String(pport), '-U', 'postgres', '-D', rdir, '-R', '-X', 'stream', '--no-sync']);
  appendFileSync(join(rdir, 'postgresql.conf'), conf(rdir, rport));
  const replica = server(rdir, rport);
  replica.start();
  const pair: PgPair = {
    primary,
    replica,
    async createDb(name) {
      await query(primary.url(), `CREATE DATABASE ${name}`);
      await pair.waitCaughtUp();
      return name;
    },
    async setReplayPaused(paused) {
      await query(replica.url(), paused ? 'select pg_wal_replay_pause()' : 'select pg_wal_replay_resume()');
    },
    async waitCaughtUp(ms = 30_000) {
      const lsn = (await query(primary.url(), 'select pg_current_wal_lsn()::text as lsn')).rows[0].lsn as string;
      const deadline = Date.now() + ms;
      for (;;) {
        const r = await query(replica.url(), `select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as ok`).catch(() => null);
        if (r?.rows[0]?.ok) return;
        if (Date.now() > deadline) throw new Error(`replica did not replay up to ${lsn} within ${ms} ms`);
        await new Promise((res) => setTimeout(res, 50));
      }
    },
    destroy() {
      for (const s of [replica, primary]) {
        try {
          s.stop('immediate');
        } catch {
          /* already stopped */
        }
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
  return pair;
}

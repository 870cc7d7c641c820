/**
 * Store outages, recognised in one place: the driver errors (SQLite's and PostgreSQL's codes and messages) that
 * mean the database cannot answer now rather than that the query is wrong, wrapped once as StoreUnavailable by
 * the dialect every store opens with (`reportingOutages`), so the faces map one code (`store_unavailable`).
 */
import type { DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings, CompiledQuery } from 'kysely';
import { Conflict, Forbidden, InvalidInput, LimitExceeded, NotFound, PaywatchError, Unauthenticated } from '../domain/errors.js';

/**
 * Codes of an unreachable or busy database, matched against an error's whole `code`: connection refused/reset/timed
 * out, PostgreSQL's admin shutdown (57P01–57P03), connection exceptions (class 08), too many connections (53300),
 * a missing database (3D000); SQLite's busy, cannot-open and I/O errors.
 */
const OUTAGE_CODE =
  /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|3D000|57P0[1-3]|08\d{3}|53300|53100|25006|SQLITE_BUSY\w*|SQLITE_CANTOPEN\w*|SQLITE_IOERR\w*|SQLITE_FULL|SQLITE_READONLY\w*)$/;
/**
 * The outages that stop writes while reads may still answer: SQLite's disk full, read-only file and I/O errors,
 * PostgreSQL's disk full (53100) and read-only transaction (25006, a standby or `default_transaction_read_only`),
 * each with the reason /readyz gives until a write succeeds again.
 */
const WRITE_OUTAGES: [RegExp, string][] = [
  [/^(SQLITE_FULL|53100)$/, 'disk full'],
  [/^(SQLITE_READONLY\w*|25006)$/, 'read-only'],
  [/^SQLITE_IOERR\w*$/, 'I/O error'],
];
/**
 * Driver messages that say the same when the driver gives no code: driver codes as whole words, a pool or driver
 * already closed, a read replica's replay conflict. Never bare digits: a sha256 in a message once read as the
 * SQLSTATE class 08.
 */
const OUTAGE_MESSAGE =
  /\b(ECONNREFUSED|ECONNRESET|ETIMEDOUT|SQLITE_BUSY|SQLITE_CANTOPEN|SQLITE_IOERR|SQLITE_FULL|SQLITE_READONLY)\b|database or disk is full|attempt to write a readonly database|Connection terminated|timeout exceeded when trying to connect|database is locked|pool.*(ended|destroyed)|after calling end on the pool|driver has already been destroyed|conflict with recovery/i;
/** Answers of the domain's own rules: their messages may quote client data, and they are never outages. */
const DOMAIN_ANSWERS = [InvalidInput, Unauthenticated, Forbidden, NotFound, Conflict, LimitExceeded];

/** The store cannot answer now (its database is unreachable, restarting or busy); retry after `retryAfterSeconds`. */
export class StoreUnavailable extends PaywatchError {
  readonly retryAfterSeconds = 5;
  constructor(cause: unknown) {
    super('service unavailable: the store cannot answer now; retry with exponential backoff', {
      code: 'store_unavailable',
      retryable: true,
      cause,
    });
  }
}

/** True when `err` (a driver error) says the database cannot answer now. */
export function isStoreOutage(err: unknown): boolean {
  if (err instanceof StoreUnavailable) return true;
  if (DOMAIN_ANSWERS.some((kind) => err instanceof kind)) return false;
  const e = err as { code?: unknown; message?: unknown };
  return (typeof e?.code === 'string' && OUTAGE_CODE.test(e.code)) || (typeof e?.message === 'string' && OUTAGE_MESSAGE.test(e.message));
}

/**
 * Why `err` stops writes ('disk full', 'read-only', 'I/O error'), with its driver code; null for any other error.
 * @example writeOutageOf(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })) // 'disk full (SQLITE_FULL)'
 */
export function writeOutageOf(err: unknown): string | null {
  const inner = err instanceof StoreUnavailable ? (err as { cause?: unknown }).cause : err;
  const code = (inner as { code?: unknown })?.code;
  if (typeof code !== 'string') return null;
  const hit = WRITE_OUTAGES.find(([re]) => re.test(code));
  return hit ? `${hit[1]} (${code})` : null;
}

/** Statements that write (a successful one ends a write outage). */
const WRITE_NODES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);
const isWrite = (q: CompiledQuery) =>
  WRITE_NODES.has(q.query.kind) || (q.query.kind === 'RawNode' && /^\s*(insert|update|delete|replace)\b/i.test(q.sql));

/** The write health of one store: the reason writes fail now, or null. */
export interface WriteHealth {
  failing: string | null;
}

/** `err` as StoreUnavailable when it is an outage, else unchanged. */
function asStoreError(err: unknown): unknown {
  return err instanceof StoreUnavailable || !isStoreOutage(err) ? err : new StoreUnavailable(err);
}

/**
 * `connection` with its queries' outage errors wrapped; every other member is the connection's own. A write
 * outage is noted in `health`; a write that succeeds outside a transaction clears it (inside one, the commit does).
 */
function reportingConnection(
  connection: DatabaseConnection,
  health: WriteHealth,
  inTransaction: WeakMap<DatabaseConnection, { wrote: boolean }>,
): DatabaseConnection {
  return new Proxy(connection, {
    get(target, prop) {
      if (prop === 'executeQuery') {
        return async <R>(q: CompiledQuery): Promise<QueryResult<R>> => {
          try {
            const r = await target.executeQuery<R>(q);
            if (isWrite(q)) {
              const tx = inTransaction.get(target);
              if (tx) tx.wrote = true;
              else health.failing = null;
            }
            return r;
          } catch (e) {
            health.failing = writeOutageOf(e) ?? health.failing;
            throw asStoreError(e);
          }
        };
      }
      const v = Reflect.get(target, prop, target);
      // Drivers' connections keep private fields: their methods must run on the connection itself.
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/** The closed state of one reporting driver (see ReportingDialect.close). */
interface Closing {
  closed: boolean;
  driver: Driver | null;
}

/**
 * `driver` whose connections report outages as StoreUnavailable, also when a connection cannot be had and once
 * the store is closed.
 */
function reportingDriver(driver: Driver, closing: Closing, health: WriteHealth): Driver {
  const inner = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const inTransaction = new WeakMap<DatabaseConnection, { wrote: boolean }>();
  let destroyed: Promise<void> | undefined;
  const unwrap = (c: DatabaseConnection) => inner.get(c) ?? c;
  const guard = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (closing.closed) throw new StoreUnavailable(new Error('the store is closed'));
    try {
      return await fn();
    } catch (e) {
      health.failing = writeOutageOf(e) ?? health.failing;
      throw asStoreError(e);
    }
  };
  return {
    init: () => guard(() => driver.init()),
    acquireConnection: () =>
      guard(async () => {
        const c = await driver.acquireConnection();
        const wrapped = reportingConnection(c, health, inTransaction);
        inner.set(wrapped, c);
        return wrapped;
      }),
    beginTransaction: (c: DatabaseConnection, s: TransactionSettings) =>
      guard(async () => {
        await driver.beginTransaction(unwrap(c), s);
        inTransaction.set(unwrap(c), { wrote: false });
      }),
    commitTransaction: (c: DatabaseConnection) =>
      guard(async () => {
        const wrote = inTransaction.get(unwrap(c))?.wrote === true;
        inTransaction.delete(unwrap(c));
        await driver.commitTransaction(unwrap(c));
        if (wrote) health.failing = null;
      }),
    rollbackTransaction: (c: DatabaseConnection) =>
      guard(async () => {
        inTransaction.delete(unwrap(c));
        try {
          await driver.rollbackTransaction(unwrap(c));
        } catch (e) {
          // SQLite rolls a transaction back itself on SQLITE_FULL or SQLITE_IOERR (https://www.sqlite.org/lang_transaction.html,
          // "Response To Errors Within A Transaction"): nothing is half-stored, and the statement's own error is the one to report.
          if (!/no transaction is active/.test(String((e as Error)?.message))) throw e;
        }
      }),
    releaseConnection: (c: DatabaseConnection) => driver.releaseConnection(unwrap(c)),
    // Once: the store's close and Kysely's destroy may both come here.
    destroy: () => (destroyed ??= driver.destroy()),
  };
}

/** A dialect whose driver reports outages (reportingOutages), with the store's own way to close it. */
export interface ReportingDialect extends Dialect {
  /**
   * Closes the database (its driver). Close a store through this rather than Kysely's `destroy`: a query after it
   * is then a StoreUnavailable like any outage, where Kysely would throw its own untyped "destroyed" error.
   */
  close(): Promise<void>;
  /** Why writes fail now ('disk full (SQLITE_FULL)', 'read-only (25006)', …), or null; cleared by the next successful write. */
  writeOutage(): string | null;
  /** Clears the outage: a write succeeded that was rolled back on purpose (the write probe), so no commit cleared it. */
  writeSucceeded(): void;
}

/**
 * `dialect` whose driver wraps outage errors once as StoreUnavailable (the query's own errors, such as a unique
 * violation, pass unchanged).
 * @example new Kysely<Database>({ dialect: reportingOutages(new SqliteDialect({ database })) })
 */
export function reportingOutages(dialect: Dialect): ReportingDialect {
  const closing: Closing = { closed: false, driver: null };
  const health: WriteHealth = { failing: null };
  return {
    writeOutage: () => health.failing,
    writeSucceeded: () => {
      health.failing = null;
    },
    close: async () => {
      if (closing.closed) return;
      closing.closed = true;
      await closing.driver?.destroy();
    },
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => (closing.driver = reportingDriver(dialect.createDriver(), closing, health)),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  };
}

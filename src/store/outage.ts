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
const OUTAGE_CODE = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|3D000|57P0[1-3]|08\d{3}|53300|SQLITE_BUSY\w*|SQLITE_CANTOPEN\w*|SQLITE_IOERR\w*)$/;
/**
 * Driver messages that say the same when the driver gives no code: driver codes as whole words, a pool or driver
 * already closed, a read replica's replay conflict. Never bare digits: a sha256 in a message once read as the
 * SQLSTATE class 08.
 */
const OUTAGE_MESSAGE =
  /\b(ECONNREFUSED|ECONNRESET|ETIMEDOUT|SQLITE_BUSY|SQLITE_CANTOPEN|SQLITE_IOERR)\b|Connection terminated|timeout exceeded when trying to connect|database is locked|pool.*(ended|destroyed)|after calling end on the pool|driver has already been destroyed|conflict with recovery/i;
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

/** `err` as StoreUnavailable when it is an outage, else unchanged. */
function asStoreError(err: unknown): unknown {
  return err instanceof StoreUnavailable || !isStoreOutage(err) ? err : new StoreUnavailable(err);
}

/** `connection` with its queries' outage errors wrapped; every other member is the connection's own. */
function reportingConnection(connection: DatabaseConnection): DatabaseConnection {
  return new Proxy(connection, {
    get(target, prop) {
      if (prop === 'executeQuery') {
        return async <R>(q: CompiledQuery): Promise<QueryResult<R>> => {
          try {
            return await target.executeQuery<R>(q);
          } catch (e) {
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
function reportingDriver(driver: Driver, closing: Closing): Driver {
  const inner = new WeakMap<DatabaseConnection, DatabaseConnection>();
  let destroyed: Promise<void> | undefined;
  const unwrap = (c: DatabaseConnection) => inner.get(c) ?? c;
  const guard = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (closing.closed) throw new StoreUnavailable(new Error('the store is closed'));
    try {
      return await fn();
    } catch (e) {
      throw asStoreError(e);
    }
  };
  return {
    init: () => guard(() => driver.init()),
    acquireConnection: () =>
      guard(async () => {
        const c = await driver.acquireConnection();
        const wrapped = reportingConnection(c);
        inner.set(wrapped, c);
        return wrapped;
      }),
    beginTransaction: (c: DatabaseConnection, s: TransactionSettings) => guard(() => driver.beginTransaction(unwrap(c), s)),
    commitTransaction: (c: DatabaseConnection) => guard(() => driver.commitTransaction(unwrap(c))),
    rollbackTransaction: (c: DatabaseConnection) => guard(() => driver.rollbackTransaction(unwrap(c))),
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
}

/**
 * `dialect` whose driver wraps outage errors once as StoreUnavailable (the query's own errors, such as a unique
 * violation, pass unchanged).
 * @example new Kysely<Database>({ dialect: reportingOutages(new SqliteDialect({ database })) })
 */
export function reportingOutages(dialect: Dialect): ReportingDialect {
  const closing: Closing = { closed: false, driver: null };
  return {
    close: async () => {
      if (closing.closed) return;
      closing.closed = true;
      await closing.driver?.destroy();
    },
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => (closing.driver = reportingDriver(dialect.createDriver(), closing)),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  };
}

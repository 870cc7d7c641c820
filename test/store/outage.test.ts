/**
 * Which errors read as a store outage (503 store_unavailable): driver codes matched whole, driver messages as words,
 * and never an answer of the domain's own rules, whatever its message quotes (a sha256 with "08" and three digits
 * once turned a 409 conflict into a 503).
 */
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { PG_ADMIN_URL } from '../helpers/db.js';
import { isStoreOutage, StoreUnavailable } from '../../src/store/outage.js';
import { Conflict, InvalidInput, NotFound } from '../../src/domain/errors.js';

describe('isStoreOutage', () => {
  it('recognises driver codes and messages of an unreachable or busy database', () => {
    for (const code of [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      '57P01',
      '08006',
      '53300',
      '3D000',
      'SQLITE_BUSY',
      'SQLITE_BUSY_SNAPSHOT',
      'SQLITE_IOERR_READ',
    ]) {
      expect(isStoreOutage(Object.assign(new Error('x'), { code })), code).toBe(true);
    }
    for (const message of [
      'connect ECONNREFUSED 127.0.0.1:5432',
      'SqliteError: database is locked',
      'Connection terminated unexpectedly',
      'canceling statement due to conflict with recovery',
      'driver has already been destroyed',
    ]) {
      expect(isStoreOutage(new Error(message)), message).toBe(true);
    }
    expect(isStoreOutage(new StoreUnavailable(new Error('x')))).toBe(true);
  });

  it('reads a query on an ended pg pool (a store closed during shutdown) as an outage', async () => {
    const pool = new pg.Pool({ connectionString: PG_ADMIN_URL });
    await pool.end();
    const err = await pool.query('select 1').then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as Error).message).toMatch(/pool/);
    expect(isStoreOutage(err)).toBe(true);
  });

  it('never reads digits inside a message, or an answer of the domain, as an outage', () => {
    const sha = `a08123f7${'0'.repeat(56)}`;
    expect(isStoreOutage(new Conflict(`event_id 'e' was already received with a different body (sha256 ${sha})`))).toBe(false);
    expect(isStoreOutage(new Conflict("event_id 'database is locked' was already received with a different body"))).toBe(false);
    expect(isStoreOutage(new InvalidInput('invalid query parameter: ECONNREFUSED'))).toBe(false);
    expect(isStoreOutage(new NotFound('no transaction 0x53300'))).toBe(false);
    expect(isStoreOutage(new Error(`body sha256 ${sha}`))).toBe(false);
    expect(isStoreOutage(Object.assign(new Error('x'), { code: '23505' }))).toBe(false);
  });
});

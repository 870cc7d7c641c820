/**
 * The one catalogue of error codes (src/domain/error-codes.ts): docs/architecture.md shows it, with each face's
 * mapping, exactly as it is; every face's table covers every code; an error's `retryable` defaults to the
 * catalogue's; `shortMessage` reads any thrown value in one line.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT_CODE_OF_CODE } from '../../src/cli/run.js';
import { ERROR_CODE_LIST, ERROR_CODES, isErrorCode } from '../../src/domain/error-codes.js';
import { LimitExceeded, NotFound, PaywatchError, shortMessage, Unavailable } from '../../src/domain/errors.js';
import { HTTP_STATUS_OF_CODE } from '../../src/http/errors.js';
import { FetchFailed, FetchRefused, FetchTimeout } from '../../src/net/errors.js';
import { currentTable, DOC_TABLES, tableCells } from '../../scripts/doc-tables.js';

const table = DOC_TABLES.find((t) => t.name === 'error-codes')!;
const doc = readFileSync(new URL(`../../${table.file}`, import.meta.url), 'utf8');

/** The doc table's rows as {code: cells}. */
function docRows(): Map<string, string[]> {
  const rows = tableCells(currentTable(doc, table));
  return new Map(rows.map((cells) => [cells[0]!.replace(/`/g, ''), cells.slice(1)]));
}

describe('the error-code table of docs/architecture.md', () => {
  it('is the catalogue, with the HTTP status and exit code of each code (npm run docs:tables rewrites it)', () => {
    expect(currentTable(doc, table)).toBe(table.render());
  });

  it('has one row per code, in catalogue order, each saying what the catalogue says', () => {
    const rows = docRows();
    expect([...rows.keys()]).toEqual(ERROR_CODE_LIST);
    for (const code of ERROR_CODE_LIST) {
      const [fault, retryable, status, exit, meaning] = rows.get(code)!;
      const info = ERROR_CODES[code];
      expect(fault, code).toBe(info.callerFault ? 'yes' : 'no');
      expect(retryable, code).toBe(info.retryable === 'varies' ? 'varies' : info.retryable ? 'yes' : 'no');
      expect(status, code).toBe(String(HTTP_STATUS_OF_CODE[code] ?? '500 (internal)'));
      expect(exit, code).toBe(String(EXIT_CODE_OF_CODE[code]));
      expect(meaning, code).toBe(info.meaning);
    }
  });
});

describe('the catalogue', () => {
  it('is covered by the HTTP status table and the exit-code table, code for code', () => {
    expect(Object.keys(HTTP_STATUS_OF_CODE).sort()).toEqual([...ERROR_CODE_LIST].sort());
    expect(Object.keys(EXIT_CODE_OF_CODE).sort()).toEqual([...ERROR_CODE_LIST].sort());
  });

  it('answers every caller-facing code with a 4xx and every HTTP-answered outage with a 503', () => {
    for (const code of ERROR_CODE_LIST) {
      const status = HTTP_STATUS_OF_CODE[code];
      if (status === null) continue;
      const info = ERROR_CODES[code];
      if (info.callerFault) expect(status, code).toBeLessThan(500);
      else expect([503], code).toContain(status);
    }
  });

  it('gives an error its code’s retryable unless the code varies', () => {
    expect(new NotFound('x').retryable).toBe(false);
    expect(new LimitExceeded('x', { retryAfterSeconds: 1 }).retryable).toBe(true);
    expect(new Unavailable('x').retryable).toBe(true);
    expect(new FetchTimeout('x').retryable).toBe(true);
    expect(new FetchFailed('x', 'dns').retryable).toBe(true);
    expect(new FetchFailed('x', 'bad_url').retryable).toBe(false);
    expect(new FetchRefused('x', 'address').retryable).toBe(false);
    expect(new PaywatchError('x', { code: 'rpc_unavailable' }).retryable).toBe(true);
    expect(new PaywatchError('x', { code: 'rpc_call' }).retryable).toBe(false);
    expect(new PaywatchError('x', { code: 'rpc_call', retryable: true }).retryable).toBe(true);
  });

  it('knows its codes, and nothing else', () => {
    expect(isErrorCode('store_unavailable')).toBe(true);
    expect(isErrorCode('SQLITE_BUSY')).toBe(false);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode(undefined)).toBe(false);
  });
});

describe('shortMessage', () => {
  it('reads the first line of any thrown value, preferring viem’s shortMessage', () => {
    expect(shortMessage(new Error('socket hang up\n    at x'))).toBe('socket hang up');
    expect(shortMessage(Object.assign(new Error('long\nwith details'), { shortMessage: 'short' }))).toBe('short');
    expect(shortMessage(Object.assign(new Error('message'), { shortMessage: '' }))).toBe('message');
    expect(shortMessage('boom')).toBe('boom');
    expect(shortMessage({ message: 'from an object' })).toBe('from an object');
    expect(shortMessage(42)).toBe('42');
    expect(shortMessage(undefined)).toBe('undefined');
    expect(shortMessage(Object.create(null))).toBe('[object Object]');
  });
});

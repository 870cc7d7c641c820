/** A `--db` value: which database it names, and how to show it without its password. */
import type { DialectName } from './dialect.js';
import { InvalidInput } from '../domain/errors.js';

/** Parsed form of a `--db` value. */
export interface DbTarget {
  dialect: DialectName;
  /** File path for SQLite (or ':memory:'), connection string for PostgreSQL. */
  target: string;
}

/**
 * Parses a `--db` / PAYWATCH_DB value: `postgres://…` or `postgresql://…` selects PostgreSQL;
 * `sqlite:PATH` or a bare path selects SQLite.
 * @throws InvalidInput on an empty value
 */
export function parseDbTarget(value: string): DbTarget {
  const v = value.trim();
  if (!v) throw new InvalidInput('database location is empty');
  if (/^postgres(ql)?:\/\//i.test(v)) return { dialect: 'postgres', target: v };
  const path = v.startsWith('sqlite:') ? v.slice('sqlite:'.length) : v;
  if (!path) throw new InvalidInput('sqlite: needs a path');
  return { dialect: 'sqlite', target: path };
}

/** Removes the password from a connection string for display. */
export function redactDbLocation(t: DbTarget): string {
  if (t.dialect === 'sqlite') return `sqlite:${t.target}`;
  try {
    const u = new URL(t.target);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparseable)';
  }
}

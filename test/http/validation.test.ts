/**
 * The listeners' request validator (src/http/validation.ts): a query string parsed once is answered from its memo,
 * each time as a fresh object, per route schema; refusals and other request parts are parsed every time.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { plainValidatorCompiler } from '../../src/http/validation.js';

type Validate = (data: unknown) => { value?: unknown; error?: Error };

/** A compiled validator for `schema` as Fastify makes it for `httpPart`, and how many times zod ran it. */
function compiled(httpPart: string, shape: z.ZodRawShape) {
  let parses = 0;
  const schema = z.strictObject(shape).transform((v) => {
    parses++;
    return v;
  });
  const validate = plainValidatorCompiler({ schema, httpPart, method: 'GET', url: '/x' } as never) as unknown as Validate;
  return { validate, parses: () => parses };
}

describe('query validation memo', () => {
  it('parses a repeated query string once and hands each request its own copy', () => {
    const { validate, parses } = compiled('querystring', { limit: z.coerce.number().int().default(20), by: z.string().optional() });
    const first = validate({ limit: '5', by: 'nominal' });
    expect(first.value).toEqual({ limit: 5, by: 'nominal' });
    (first.value as Record<string, unknown>).limit = 99;
    const second = validate({ limit: '5', by: 'nominal' });
    expect(second.value).toEqual({ limit: 5, by: 'nominal' });
    expect(second.value).not.toBe(first.value);
    (second.value as Record<string, unknown>).by = 'changed by a handler';
    const third = validate({ limit: '5', by: 'nominal' });
    expect(third.value).toEqual({ limit: 5, by: 'nominal' });
    expect(parses()).toBe(1);
    expect(validate({ limit: '6', by: 'nominal' }).value).toEqual({ limit: 6, by: 'nominal' });
    expect(parses()).toBe(2);
  });

  it('keeps routes apart: the same query under another schema is parsed by that schema', () => {
    const a = compiled('querystring', { n: z.coerce.number() });
    const b = compiled('querystring', { n: z.string() });
    expect(a.validate({ n: '7' }).value).toEqual({ n: 7 });
    expect(b.validate({ n: '7' }).value).toEqual({ n: '7' });
  });

  it('never remembers a refusal, and parses other request parts every time', () => {
    const q = compiled('querystring', { limit: z.coerce.number().int().max(10) });
    for (let i = 0; i < 2; i++)
      expect(q.validate({ limit: '11' }).error?.message).toBe("invalid query parameter 'limit': must be at most 10");
    expect(q.validate({ limit: '3' }).value).toEqual({ limit: 3 });
    const p = compiled('params', { hash: z.string() });
    p.validate({ hash: 'a' });
    p.validate({ hash: 'a' });
    expect(p.parses()).toBe(2);
  });

  it('is bounded: a long query string is parsed every time, and old entries go once the memo is full', () => {
    const q = compiled('querystring', { q: z.string() });
    const long = { q: 'x'.repeat(600) };
    q.validate(long);
    q.validate(long);
    expect(q.parses()).toBe(2);
    // ~500-character keys: 600 of them are past the memo's 256 K characters, so the first is forgotten.
    const entry = (i: number) => ({ q: `${i}`.padEnd(480, '.') });
    for (let i = 0; i < 600; i++) q.validate(entry(i));
    const before = q.parses();
    q.validate(entry(599));
    expect(q.parses()).toBe(before);
    q.validate(entry(0));
    expect(q.parses()).toBe(before + 1);
  });
});

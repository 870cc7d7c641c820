/**
 * Errors thrown on a real worker thread (a task thread, src/threads) reach the host with their class, name, code,
 * `retryable`, `retryAfterSeconds` and cause (src/threads/error-wire.ts), so the HTTP layer answers a store outage
 * on a reader thread as 503 with Retry-After from its code alone, as it would inline.
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcCallError } from '../../src/chain/rpc.js';
import { LimitExceeded, PaywatchError, Unavailable } from '../../src/domain/errors.js';
import { installErrorHandling } from '../../src/http/errors.js';
import { StoreUnavailable } from '../../src/store/outage.js';
import { TaskThread } from '../../src/threads/task-thread.js';
import type { Throw } from './throwing-body.js';

let thread: TaskThread<Throw, string>;

beforeAll(async () => {
  thread = new TaskThread<Throw, string>(
    new URL('./throwing-body.ts', import.meta.url),
    {},
    (message) => new Error(`thread failed: ${message}`),
    () => undefined,
    [StoreUnavailable, RpcCallError],
  );
  while (!thread.ready) await new Promise((r) => setTimeout(r, 20));
}, 60_000);

afterAll(async () => {
  await thread?.terminate();
});

/** What `kind` rejects with on the host. */
async function thrown(kind: Throw): Promise<unknown> {
  return thread.run(kind).then(
    () => expect.unreachable('the task should throw'),
    (e: unknown) => e,
  );
}

describe('an error thrown on a task thread', () => {
  it('answers as the body returned when nothing is thrown', async () => {
    expect(await thread.run('none')).toBe('answered');
  });

  it('keeps a store outage’s class, code, retryable, Retry-After and cause', async () => {
    const e = await thrown('store');
    expect(e).toBeInstanceOf(StoreUnavailable);
    expect(e).toBeInstanceOf(PaywatchError);
    expect(e).toMatchObject({
      name: 'StoreUnavailable',
      code: 'store_unavailable',
      retryable: true,
      retryAfterSeconds: 5,
      message: 'service unavailable: the store cannot answer now; retry with exponential backoff',
    });
    expect((e as Error).cause).toMatchObject({ message: 'connect ECONNREFUSED 127.0.0.1:5432', code: 'ECONNREFUSED' });
    expect((e as Error).stack).toMatch(/throwing-body/);
  });

  it('keeps the domain’s general kinds with their Retry-After, which the host need not name', async () => {
    const limit = await thrown('limit');
    expect(limit).toBeInstanceOf(LimitExceeded);
    expect(limit).toMatchObject({ code: 'limit_exceeded', retryable: true, retryAfterSeconds: 7 });
    const busy = await thrown('busy');
    expect(busy).toBeInstanceOf(Unavailable);
    expect(busy).toMatchObject({ code: 'unavailable', retryable: true, retryAfterSeconds: 1 });
  });

  it('keeps a retryable that varies per error (a JSON-RPC method the node does not support is not retried)', async () => {
    const e = await thrown('rpc');
    expect(e).toBeInstanceOf(RpcCallError);
    expect(e).toMatchObject({ code: 'rpc_call', retryable: false, message: 'eth_getBlockByNumber failed: method not found (code -32601)' });
  });

  it('rebuilds an area error the host does not name as a PaywatchError with its name and code', async () => {
    const e = await thrown('area');
    expect(e).toBeInstanceOf(PaywatchError);
    expect(e).toMatchObject({ name: 'MalformedHexError', code: 'malformed_hex', retryable: false, message: 'not a quantity: 0xzz' });
  });

  it('keeps a driver’s code, a built-in class, and a thrown value’s text', async () => {
    const driver = await thrown('driver');
    expect(driver).not.toBeInstanceOf(PaywatchError);
    expect(driver).toMatchObject({ name: 'SqliteError', code: 'SQLITE_BUSY', message: 'database is locked' });
    const type = await thrown('type');
    expect(type).toBeInstanceOf(TypeError);
    expect((type as Error).message).toBe('x is not a function');
    const text = await thrown('string');
    expect(text).toBeInstanceOf(Error);
    expect((text as Error).message).toBe('a thrown string');
  });

  it('is answered over HTTP by its code alone: a store outage 503 with Retry-After, a limit 429, a bug 500', async () => {
    const app = Fastify({ logger: false });
    installErrorHandling(app);
    app.get('/:kind', async (req) => thread.run((req.params as { kind: Throw }).kind));
    try {
      const store = await app.inject('/store');
      expect(store.statusCode).toBe(503);
      expect(store.headers['retry-after']).toBe('5');
      expect(store.json()).toEqual({ error: 'service unavailable: the store cannot answer now; retry with exponential backoff' });
      const limit = await app.inject('/limit');
      expect(limit.statusCode).toBe(429);
      expect(limit.headers['retry-after']).toBe('7');
      const driver = await app.inject('/driver');
      expect(driver.statusCode).toBe(500);
      expect(driver.json()).toEqual({ error: 'internal error' });
    } finally {
      await app.close();
    }
  });
});

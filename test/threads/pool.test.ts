/**
 * ThreadPool (src/threads/pool.ts), over real worker threads: tasks run inline until a thread has loaded, then on
 * the thread; past `perThread` pending tasks they run inline; a loaded thread that dies is replaced, a body that
 * never loads is not retried; after close everything runs inline.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ThreadPool } from '../../src/threads/pool.js';

type Task = { op: 'double'; x: number } | { op: 'exit' } | { op: 'fail' } | { op: 'wait'; ms: number };

class ThreadDied extends Error {}

const pools: ThreadPool<Task, number>[] = [];
function pool(size: number, extra: { perThread?: number; broken?: boolean } = {}): ThreadPool<Task, number> {
  const p = new ThreadPool<Task, number>({
    entry: new URL('./echo-thread.ts', import.meta.url),
    data: { broken: extra.broken === true },
    size,
    failure: (m) => new ThreadDied(m),
    perThread: extra.perThread,
  });
  pools.push(p);
  return p;
}
/** The inline answer differs from the thread's, so each test sees where a task ran. */
const inline = async (t: Task) => (t.op === 'double' ? -t.x : -1);

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('ThreadPool', () => {
  it('runs a task inline until a thread has loaded, then on the thread', async () => {
    const p = pool(1);
    expect(await p.run({ op: 'double', x: 4 }, inline)).toBe(-4); // a thread takes far longer than this to load
    await p.whenReady();
    expect(await p.run({ op: 'double', x: 4 }, inline)).toBe(8);
    expect(p.counts).toEqual({ thread: 1, inline: 1 });
  }, 60_000);

  it('runs inline once every loaded thread holds perThread tasks', async () => {
    const p = pool(1, { perThread: 1 });
    await p.whenReady();
    const [slow, next] = await Promise.all([p.run({ op: 'wait', ms: 300 }, inline), p.run({ op: 'double', x: 5 }, inline)]);
    expect([slow, next]).toEqual([0, -5]);
    expect(p.counts).toEqual({ thread: 1, inline: 1 });
  }, 60_000);

  it("rejects a task with the body's error and keeps serving", async () => {
    const p = pool(1);
    await p.whenReady();
    await expect(p.run({ op: 'fail' }, inline)).rejects.toMatchObject({ name: 'RangeError', message: 'asked to fail' });
    expect(await p.run({ op: 'double', x: 2 }, inline)).toBe(4);
  }, 60_000);

  it('replaces a loaded thread that dies, rejecting its task with the failure error', async () => {
    const p = pool(1);
    await p.whenReady();
    await expect(p.run({ op: 'exit' }, inline)).rejects.toBeInstanceOf(ThreadDied);
    await p.whenReady();
    expect(await p.run({ op: 'double', x: 3 }, inline)).toBe(6);
  }, 60_000);

  it('does not retry a body that never loads: its tasks run inline', async () => {
    const p = pool(2, { broken: true });
    await p.whenReady();
    expect(await p.run({ op: 'double', x: 7 }, inline)).toBe(-7);
    expect(p.counts).toEqual({ thread: 0, inline: 1 });
  }, 60_000);

  it('runs every task inline after close', async () => {
    const p = pool(1);
    await p.whenReady();
    await p.close();
    expect(await p.run({ op: 'double', x: 1 }, inline)).toBe(-1);
  }, 60_000);
});

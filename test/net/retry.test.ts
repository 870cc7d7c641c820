/**
 * withRetry (src/net/retry.ts): the attempt budget, shouldRetry (by default paywatch errors' `retryable`), the
 * awaited onRetry, and a signal ending the waiting.
 */
import { describe, expect, it } from 'vitest';
import { PaywatchError } from '../../src/domain/errors.js';
import { withRetry } from '../../src/net/retry.js';

const fast = { baseMs: 1, maxMs: 2 };

describe('withRetry', () => {
  it('returns the first success and retries up to the budget, then throws the last error', async () => {
    let n = 0;
    await expect(
      withRetry(async (attempt) => (++n < 3 ? Promise.reject(new Error(`boom ${attempt}`)) : 'ok'), { attempts: 5, ...fast }),
    ).resolves.toBe('ok');
    expect(n).toBe(3);
    n = 0;
    await expect(
      withRetry(
        async (attempt) => {
          n++;
          throw new Error(`boom ${attempt}`);
        },
        { attempts: 4, ...fast },
      ),
    ).rejects.toThrow('boom 4');
    expect(n).toBe(4);
  });

  it('does not retry what shouldRetry refuses; by default a non-retryable paywatch error', async () => {
    let n = 0;
    const fatal = new PaywatchError('wrong chain', { code: 'wrong_chain', retryable: false });
    await expect(
      withRetry(
        async () => {
          n++;
          throw fatal;
        },
        { attempts: 5, ...fast },
      ),
    ).rejects.toBe(fatal);
    expect(n).toBe(1);
    n = 0;
    await expect(
      withRetry(
        async () => {
          n++;
          throw new Error('x');
        },
        { attempts: 5, ...fast, shouldRetry: (_e, attempt) => attempt < 2 },
      ),
    ).rejects.toThrow('x');
    expect(n).toBe(2);
  });

  it('awaits onRetry before waiting, with the attempt and a delay within the ceiling', async () => {
    const seen: { attempt: number; delayMs: number; done: boolean }[] = [];
    let n = 0;
    await withRetry(async () => (++n < 3 ? Promise.reject(new Error('again')) : n), {
      attempts: 3,
      baseMs: 10,
      maxMs: 15,
      onRetry: async ({ attempt, delayMs }) => {
        const entry = { attempt, delayMs, done: false };
        seen.push(entry);
        await new Promise((r) => setTimeout(r, 5));
        entry.done = true;
      },
    });
    expect(seen.map((s) => s.attempt)).toEqual([1, 2]);
    expect(seen.every((s) => s.done && s.delayMs >= 0 && s.delayMs <= 15)).toBe(true);
  });

  it('stops waiting when the signal aborts and throws the last error', async () => {
    const abort = new AbortController();
    let n = 0;
    const t0 = Date.now();
    setTimeout(() => abort.abort(), 50);
    await expect(
      withRetry(
        async () => {
          n++;
          throw new Error('down');
        },
        {
          attempts: Infinity,
          baseMs: 60_000,
          maxMs: 60_000,
          signal: abort.signal,
          shouldRetry: () => true,
        },
      ),
    ).rejects.toThrow('down');
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(n).toBeGreaterThanOrEqual(1);
  });
});

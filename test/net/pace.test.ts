/**
 * Pace (src/net/pace.ts) on a clock the test moves: the rate learnt at a refusal counts the requests sent
 * before the refused one (not the answers, which a slow node sends late), a burst refused together cuts once,
 * Retry-After pauses everyone, the probe rises by growing steps, a turn given back unused frees its time; and
 * retryAfterMs reads only bounded, sane values.
 */
import { describe, expect, it } from 'vitest';
import { Pace, PROBE_AFTER_MS, retryAfterMs } from '../../src/net/pace.js';

function clock(start = 1_000_000) {
  const c = { t: start, now: () => c.t };
  return c;
}

describe('Pace', () => {
  it('learns the rate from the requests sent before the refusal, even when no answer has come back yet', async () => {
    const c = clock();
    const pace = new Pace(null, c.now);
    // Eight requests at once against a node with 5 tokens; none answered yet (slow batches), the sixth refused.
    const tickets = [];
    for (let i = 0; i < 8; i++) tickets.push(await pace.take());
    c.t += 30;
    expect(pace.refuse(1000, tickets[5])).toBeCloseTo(5 * 0.95, 3);
    // The rest of the burst, refused together, does not cut again.
    expect(pace.refuse(1000, tickets[6])).toBeCloseTo(4.75, 3);
    expect(pace.refuse(1000, tickets[7])).toBeCloseTo(4.75, 3);
  });

  it('pauses every request for Retry-After, then spaces them at the rate', async () => {
    const c = clock();
    const pace = new Pace(null, c.now);
    const first = await pace.take();
    const t = await pace.take();
    pace.refuse(2000, t);
    const rate = pace.rate!;
    expect(first.at).toBe(c.t);
    c.t += 2000; // the pause has passed: no real sleep below
    const a = await pace.take();
    expect(a.at).toBe(c.t);
    c.t += Math.ceil(1000 / rate);
    const b = await pace.take();
    expect(b.at - a.at).toBeCloseTo(1000 / rate, 0);
  });

  it('a refusal soon after a cut cuts by at least 10%; a quiet period raises the rate by growing steps, capped', async () => {
    const c = clock();
    const pace = new Pace(10, c.now);
    const tickets = [];
    for (let i = 0; i < 10; i++) {
      tickets.push(await pace.take());
      c.t += 100;
    }
    // The node accepted 9 requests over the last second before the tenth: 95% of 9/s.
    expect(pace.refuse(1000, tickets[9])).toBeCloseTo(8.55, 2);
    c.t += 1000;
    const after = [];
    for (let i = 0; i < 12; i++) {
      after.push(await pace.take());
      c.t += Math.ceil(1000 / pace.rate!);
    }
    expect(pace.refuse(1000, after[11])).toBeLessThanOrEqual(8.55 * 0.9 + 0.001);
    const cut = pace.rate!;
    c.t += PROBE_AFTER_MS + 1000;
    await pace.take();
    expect(pace.rate).toBeCloseTo(cut * 1.05, 2);
    c.t += PROBE_AFTER_MS + 1000;
    await pace.take();
    // Steps of 5%, 10%, 20%, 20%… of the rate the cut set.
    expect(pace.rate).toBeCloseTo(cut * 1.15, 2);
    c.t += PROBE_AFTER_MS + 1000;
    await pace.take();
    expect(pace.rate).toBeCloseTo(Math.min(10, cut * 1.35), 2);
    for (let i = 0; i < 20; i++) {
      c.t += PROBE_AFTER_MS + 1000;
      await pace.take();
    }
    expect(pace.rate).toBe(10);
  });

  it('a turn given back unused is not counted as sent, and the next request may start at its time', async () => {
    const c = clock();
    const paced = new Pace(10, c.now);
    const a = await paced.take();
    paced.unused(a);
    expect((await paced.take()).at).toBe(a.at); // not one period (100 ms) later
    // Unpaced: six at once, two of them unused; the refused sixth counts the three sent before it.
    const pace = new Pace(null, c.now);
    const t = [];
    for (let i = 0; i < 6; i++) t.push(await pace.take());
    pace.unused(t[0]);
    pace.unused(t[1]);
    c.t += 30;
    expect(pace.refuse(1000, t[5])).toBeCloseTo(3 * 0.95, 3);
  });

  it('never falls below one request per window', async () => {
    const c = clock();
    const pace = new Pace(null, c.now);
    const t = await pace.take();
    expect(pace.refuse(1000, t)).toBe(1);
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-11-26T12:00:00Z');
  it.each([
    ['1', 1000],
    [' 2 ', 2000],
    ['1.5', 1500],
    ['0', 0],
    [['3', '9'], 3000],
    ['Thu, 26 Nov 2026 12:00:05 GMT', 5000],
    ['Thu, 26 Nov 2026 11:00:00 GMT', 0],
    // A huge delay is capped: a hostile server cannot park the client.
    ['99999999999999999999999999', 60_000],
    ['Fri, 31 Dec 9999 23:59:59 GMT', 60_000],
  ] as const)('%j → %d ms', (value, ms) => {
    expect(retryAfterMs(value as string | string[], 60_000, now)).toBe(ms);
  });

  it.each([
    undefined,
    '',
    'soon',
    '-5',
    '1e3',
    'NaN',
    'Infinity',
    '0x10',
    '1'.repeat(65),
    `Thu, 26 Nov 2026 12:00:05 GMT${' '.repeat(100)}`,
    'x'.repeat(1_000_000),
  ])('unreadable %#: null', (value) => {
    expect(retryAfterMs(value, 60_000, now)).toBeNull();
  });
});

/**
 * The batch size search (src/net/batch-size.ts) held to its doc: halving at a refusal no larger than the size in
 * use, bisection upward by single probes between the largest size known to pass and the smallest refused, and a
 * fresh search below a size that passed before and is refused now (a cap on the answer's bytes).
 */
import { describe, expect, it } from 'vitest';
import { BatchSizeSearch } from '../../src/net/batch-size.js';

/**
 * Drives a search against a node that accepts at most `cap` calls per request, `available` calls waiting each
 * time, until it settles or `rounds` pass.
 * @returns the sizes of every request sent (probes included) and how many were refused
 */
function against(cap: number, ceiling: number, first: number, rounds = 50) {
  const s = new BatchSizeSearch(ceiling);
  const sent: number[] = [];
  let refused = 0;
  const send = (n: number) => {
    sent.push(n);
    if (n > cap) {
      refused++;
      s.refused(n);
    } else s.passed(n);
  };
  send(Math.min(first, ceiling));
  for (let r = 0; r < rounds && !(s.settled && s.size <= cap); r++) send(s.takeProbe(1000) ?? s.size);
  return { s, sent, refused };
}

describe('BatchSizeSearch', () => {
  it.each([
    // [node's cap, ceiling, first batch, size reached, refusals at most]
    [10, 40, 40, 10, 5], // 40 → 20 → 10 by halving; probes 15, 12, 11 refused
    [30, 40, 40, 30, 4], // halving alone stopped at 20
    [25, 40, 40, 25, 5],
    [10, 40, 12, 10, 4], // first met with a short batch of 12: halving alone left it at 6 for good
    [39, 40, 40, 39, 2],
    [40, 40, 40, 40, 0], // never refused: the ceiling
    [1, 40, 40, 1, 6],
    [7, 1000, 1000, 7, 12],
  ])('a node capping at %i, ceiling %i, first batch %i: settles at %i with at most %i refusals', (cap, ceiling, first, reached, most) => {
    const { s, refused } = against(cap, ceiling, first);
    expect(s.size).toBe(reached);
    expect(s.settled).toBe(true);
    expect(refused).toBeLessThanOrEqual(most);
    expect(s.takeProbe(1000)).toBeNull();
  });

  it('halves only at a refusal no larger than the size in use', () => {
    const s = new BatchSizeSearch(40);
    expect(s.refused(40)).toBe(true);
    expect(s.size).toBe(20);
    // A batch of 40 sent before the cut, refused after it: the size is already below it.
    expect(s.refused(40)).toBe(false);
    expect(s.size).toBe(20);
    expect(s.refused(20)).toBe(true);
    expect(s.size).toBe(10);
  });

  it('offers one probe at a time, halfway to the smallest refused, once the size in use passed and that many calls wait', () => {
    const s = new BatchSizeSearch(40);
    s.refused(40);
    s.refused(20);
    expect(s.takeProbe(100)).toBeNull(); // 10 may be too large still
    s.passed(10);
    expect(s.takeProbe(14)).toBeNull(); // not a full probe of 15
    expect(s.takeProbe(100)).toBe(15);
    expect(s.takeProbe(100)).toBeNull(); // one in flight
    expect(s.passed(15)).toBe(true);
    expect(s.size).toBe(15);
    expect(s.takeProbe(100)).toBe(17);
    expect(s.refused(17)).toBe(false); // a probe refused: the size known to pass stays
    expect(s.size).toBe(15);
    expect(s.takeProbe(100)).toBe(16);
    s.endProbe(16); // cut before it went, or failed: another may go
    expect(s.takeProbe(100)).toBe(16);
  });

  it('searches again below a size that passed before and is refused now (a cap on the answer’s bytes)', () => {
    const s = new BatchSizeSearch(40);
    s.refused(40);
    s.passed(20);
    expect(s.takeProbe(100)).toBe(30);
    s.passed(30);
    expect(s.size).toBe(30);
    expect(s.refused(30)).toBe(true); // heavier blocks: 30 no longer fits
    expect(s.size).toBe(15);
    expect(s.settled).toBe(false);
    expect(s.takeProbe(100)).toBeNull(); // 15 not known to pass yet
    s.passed(15);
    expect(s.takeProbe(100)).toBe(22);
    s.endProbe(22);
    // A batch at or above the smallest refused never raises the size, even if the node took it once.
    expect(s.passed(30)).toBe(false);
    expect(s.size).toBe(15);
  });

  it('never probes above the ceiling, nor below 1', () => {
    const s = new BatchSizeSearch(3);
    s.refused(3);
    expect(s.size).toBe(1);
    s.passed(1);
    expect(s.takeProbe(100)).toBe(2);
    s.refused(2);
    expect(s.size).toBe(1);
    expect(s.settled).toBe(true);
    const one = new BatchSizeSearch(1);
    expect(one.settled).toBe(true);
    expect(one.takeProbe(100)).toBeNull();
  });
});

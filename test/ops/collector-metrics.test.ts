/**
 * Collector values a process does not know are absent from its metrics, not 0: a process without a collector
 * (serve, verify) exports no lag, height or finalized head; they appear with the collector's first write and poll.
 */
import { expect, it } from 'vitest';
import { collectorFinalizedHead, recordWrite, registry } from '../../src/ops/metrics.js';

/** The sample lines (not HELP/TYPE) of a metric family in the exposition text. */
function samples(text: string, name: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
}

it('collector lag, height and finalized head are absent until known, then exported', async () => {
  const before = await registry.metrics();
  expect(samples(before, 'paywatch_collector_lag_seconds')).toEqual([]);
  expect(samples(before, 'paywatch_collector_height')).toEqual([]);
  expect(samples(before, 'paywatch_collector_finalized_head')).toEqual([]);

  recordWrite(120, 1, 3, Math.floor(Date.now() / 1000) - 7);
  collectorFinalizedHead.set(121);
  const after = await registry.metrics();
  expect(samples(after, 'paywatch_collector_height')).toEqual(['paywatch_collector_height 120']);
  expect(samples(after, 'paywatch_collector_finalized_head')).toEqual(['paywatch_collector_finalized_head 121']);
  const [lag] = samples(after, 'paywatch_collector_lag_seconds');
  expect(Number(lag.split(' ')[1])).toBeGreaterThanOrEqual(7);
});

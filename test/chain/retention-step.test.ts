/**
 * The collector's retention step (`--retain-days`) over a real store: it drops by block time against its clock,
 * works off a backlog over several calls within its budget, then waits its interval before looking again.
 */
import { afterAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { RetentionStep } from '../../src/chain/collector/retention.js';
import { writeBlocks } from '../../src/store/chain/index.js';
import { readRetention } from '../../src/store/chain/retention.js';
import { DIALECTS, storeFactory, countObservations } from '../helpers/db.js';
import { makeBlocks, observationsOf } from '../helpers/observations.js';

const DAY = 86_400;

describe.each(DIALECTS)('retention step on %s', (dialect) => {
  const stores = storeFactory(dialect);
  afterAll(() => stores.cleanup());
  const count = countObservations;

  it('drops what is older than the window, then waits its interval', async () => {
    const s = await stores.fresh();
    // Blocks spread evenly over 5 days.
    const start = 1_767_225_600;
    const synthetic = makeBlocks({ count: 600, seed: 9 });
    const gap = Math.floor((5 * DAY) / synthetic.length);
    const blocks = synthetic.map((b, i) => ({
      ...b,
      time: start + i * gap,
      observations: b.observations.map((o) => ({ ...o, time: start + i * gap })),
    }));
    await writeBlocks(s, blocks, { height: blocks.at(-1)!.height, hash: blocks.at(-1)!.hash });
    const end = blocks.at(-1)!.time;
    let clock = (end - 2 * DAY) * 1000;
    const step = new RetentionStep(s, 1, pino({ level: 'silent' }), {
      intervalMs: 2 * DAY * 1000,
      budgetMs: 0,
      batch: 20,
      now: () => clock,
    });
    const older = (cutoff: number) => observationsOf(blocks).filter((o) => o.time < cutoff).length;

    // A zero budget runs one batch per call: the backlog goes over several calls, each due at once.
    let calls = 0;
    while ((await readRetention(s))?.retainedFromTime !== end - 3 * DAY && calls < 100) {
      await step.step();
      calls++;
    }
    await step.step(); // the call that finds nothing left starts the interval
    expect(calls).toBeGreaterThan(1);
    expect(await count(s)).toBe(observationsOf(blocks).length - older(end - 3 * DAY));

    // Within the interval nothing happens even when more has expired; after it, the window moves on.
    clock += DAY * 1000;
    await step.step();
    expect(await count(s)).toBe(observationsOf(blocks).length - older(end - 3 * DAY));
    clock += DAY * 1000 + 1000;
    for (let i = 0; i < 100 && (await readRetention(s))!.retainedFromTime < Math.floor(clock / 1000) - DAY; i++) await step.step();
    expect(await count(s)).toBe(observationsOf(blocks).length - older(Math.floor(clock / 1000) - DAY));
  });
});

/**
 * What the API says of a range retention dropped: /api/coverage's `historical` from where data is retained (and
 * intervals only over retained blocks), /api/metrics and /api/metrics/series `covered` for a window reaching
 * before it, all valid against the app's OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropOlderThan } from '../../src/store/chain/retention.js';
import { DIALECTS } from '../helpers/db.js';
import { makeBlocks, observationsOf } from '../helpers/observations.js';
import { apiFixture, responseValidator, type ApiFixture } from './helpers.js';

const blocks = makeBlocks({ count: 200, seed: 31 });
const cutoffBlock = blocks[Math.floor(blocks.length / 2)];
const cutoff = cutoffBlock.time;
const kept = observationsOf(blocks).filter((o) => o.time >= cutoff);
const dropped = observationsOf(blocks).length - kept.length;

describe.each(DIALECTS)('API after retention on %s', (dialect) => {
  let f: ApiFixture;
  let validate: ReturnType<typeof responseValidator>;
  beforeAll(async () => {
    f = await apiFixture(dialect, blocks);
    validate = responseValidator((await f.app.inject('/api/openapi.json')).json());
  });
  afterAll(async () => f?.close());

  it('answers historical null and no covered member while nothing was dropped', async () => {
    expect((await f.app.inject('/api/coverage')).json().historical).toBeNull();
    expect((await f.app.inject('/api/metrics')).json()).not.toHaveProperty('covered');
  });

  it('says from where data is retained, so the dropped range is neither a gap nor zero activity', async () => {
    expect((await dropOlderThan(f.store, cutoff)).done).toBe(true);
    const cov = (await f.app.inject('/api/coverage')).json();
    expect(validate('/api/coverage', 200, cov)).toEqual([]);
    expect(cov.intervals).toEqual([
      { first: cutoffBlock.height, last: blocks.at(-1)!.height, blocks: blocks.at(-1)!.height - cutoffBlock.height + 1 },
    ]);
    expect(cov.historical).toMatchObject({
      retained_from: new Date(cutoff * 1000).toISOString(),
      retained_from_time: cutoff,
      retained_from_height: cutoffBlock.height,
      dropped_observations: dropped,
    });
    expect(cov.historical.note).toMatch(/neither a gap nor zero activity/);

    // A window reaching before the retained data names the part it covers; one inside it does not.
    const all = (await f.app.inject('/api/metrics')).json();
    expect(validate('/api/metrics', 200, all)).toEqual([]);
    expect(all.total).toBe(kept.length);
    expect(all.covered).toMatchObject({ since: cutoff, until: null, retained_from: new Date(cutoff * 1000).toISOString() });
    const early = (await f.app.inject(`/api/metrics?since=${blocks[0].time}&until=${cutoff + 10}`)).json();
    expect(early.covered).toMatchObject({ since: cutoff, until: cutoff + 10 });
    const inside = (await f.app.inject(`/api/metrics?since=${cutoff}`)).json();
    expect(inside).not.toHaveProperty('covered');
    expect(inside.total).toBe(kept.length);

    const series = (
      await f.app.inject(`/api/metrics/series?bucket=hour&since=${blocks[0].time - 3600}&until=${blocks.at(-1)!.time + 1}`)
    ).json();
    expect(validate('/api/metrics/series', 200, series)).toEqual([]);
    expect(series.covered).toMatchObject({ since: cutoff, until: blocks.at(-1)!.time + 1 });
    expect((await f.app.inject('/api/status')).json().total_transactions).toBe(kept.length);
  });
});

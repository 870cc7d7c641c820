import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { makeBlocks, relocate } from '../helpers/observations.js';
import { apiFixture, responseValidator, type ApiFixture } from './helpers.js';
import { DecimalSum } from '../../src/domain/money.js';

// 60 blocks, one every 20 minutes: 20 hours of activity over parts of 21 hour buckets and 2 days.
const T0 = 1_767_225_600 + 7 * 3600 + 123;
const blocks = makeBlocks({ count: 240, seed: 33 }).map((b, i) => relocate(b, b.height, T0 + i * 1200));
const since = T0 - 100;
const until = blocks.at(-1)!.time + 1;
const H = Math.ceil(until / 3600) * 3600;

describe.each(DIALECTS)('GET /api/metrics/series on %s', (dialect) => {
  let f: ApiFixture;
  beforeAll(async () => {
    f = await apiFixture(dialect, blocks);
  });
  afterAll(async () => f?.close());

  it('sums each bucket exactly as /api/metrics does over the same window, split by execution and listed token', async () => {
    for (const filter of ['', '&execution=success', '&asset=pathUSD']) {
      const r = await f.app.inject(`/api/metrics/series?bucket=hour&since=${since}&until=${until}${filter}`);
      expect(r.statusCode, filter).toBe(200);
      const s = r.json();
      expect(s.truncated).toBe(false);
      expect(s.buckets[0].start).toBe(since);
      expect(s.buckets.at(-1).end).toBe(until);
      let count = 0;
      for (const b of s.buckets) {
        const m = (await f.app.inject(`/api/metrics?since=${b.start}&until=${b.end}${filter}`)).json();
        expect(
          { count: b.count, nominal: b.nominal, fees: b.fees, nominal_known: b.nominal_known, fees_known: b.fees_known },
          `${filter} ${b.start}`,
        ).toEqual({
          count: m.total,
          nominal: m.nominal,
          fees: m.fees,
          nominal_known: m.nominal_known,
          fees_known: m.fees_known,
        });
        for (const e of filter.includes('execution') ? [] : ['success', 'failed', 'unknown']) {
          const me = (await f.app.inject(`/api/metrics?since=${b.start}&until=${b.end}${filter}&execution=${e}`)).json();
          expect([b.execution[e].count, b.execution[e].nominal, b.execution[e].fees]).toEqual([me.total, me.nominal, me.fees]);
        }
        const byAsset = new DecimalSum();
        for (const a of b.assets) byAsset.add(a.nominal);
        expect(byAsset.count ? byAsset.value() : null).toBe(b.nominal);
        count += b.count;
      }
      const whole = (await f.app.inject(`/api/metrics?since=${since}&until=${until}${filter}`)).json();
      expect(count).toBe(whole.total);
      expect(s.total).toBe(whole.total);
    }
  });

  it('day buckets align to UTC days and an empty bucket is count 0 with null sums', async () => {
    const s = (await f.app.inject(`/api/metrics/series?bucket=day&since=${T0 - 86_400 * 2}&until=${until}`)).json();
    expect(s.bucket_seconds).toBe(86_400);
    expect(s.buckets[1].start % 86_400).toBe(0);
    expect(s.buckets[0]).toMatchObject({ count: 0, nominal: null, fees: null, assets: [] });
    expect(s.assets.map((a: { symbol: string }) => a.symbol).length).toBeGreaterThan(0);
  });

  it('split=protocol splits each bucket into mpp, x402 and unknown, each equal to /api/metrics with that protocol', async () => {
    const s = (await f.app.inject(`/api/metrics/series?bucket=hour&since=${since}&until=${until}&split=protocol`)).json();
    let mpp = 0;
    for (const b of s.buckets) {
      for (const p of ['mpp', 'x402', 'unknown']) {
        const m = (await f.app.inject(`/api/metrics?since=${b.start}&until=${b.end}&protocol=${p}`)).json();
        expect([b.protocol[p].count, b.protocol[p].nominal, b.protocol[p].fees], `${p} ${b.start}`).toEqual([m.total, m.nominal, m.fees]);
      }
      expect(b.protocol.mpp.count + b.protocol.x402.count + b.protocol.unknown.count).toBe(b.count);
      mpp += b.protocol.mpp.count;
    }
    expect(mpp).toBeGreaterThan(0);
    // Without the split, buckets keep their shape.
    const plain = (await f.app.inject(`/api/metrics/series?bucket=hour&since=${since}&until=${until}`)).json();
    expect(plain.buckets.every((b: object) => !('protocol' in b))).toBe(true);
    const bad = await f.app.inject('/api/metrics/series?split=asset');
    expect([bad.statusCode, Object.keys(bad.json())]).toEqual([400, ['error']]);
    expect(bad.json().error).toMatch(/'split'/);
  });

  it('answers 400 {error} for a bad bucket, since >= until, too many buckets and unknown parameters', async () => {
    for (const url of [
      '/api/metrics/series?bucket=week',
      `/api/metrics/series?since=${until}&until=${until}`,
      `/api/metrics/series?since=${until + 5}&until=${until}`,
      `/api/metrics/series?bucket=hour&since=${until - 745 * 3600}&until=${until}`,
      `/api/metrics/series?bucket=day&since=0&until=${until}`,
      `/api/metrics/series?since=${until}`,
      '/api/metrics/series?limit=3',
    ]) {
      const r = await f.app.inject(url);
      expect(r.statusCode, url).toBe(400);
      expect(Object.keys(r.json()), url).toEqual(['error']);
      expect(r.json().error, url).toMatch(/bucket|since|limit/);
    }
    expect((await f.app.inject(`/api/metrics/series?bucket=hour&since=${H - 744 * 3600}&until=${H}`)).statusCode).toBe(200);
  });

  it('is in the OpenAPI document and its answers match it', async () => {
    const doc = (await f.app.inject('/api/openapi.json')).json();
    const op = doc.paths['/api/metrics/series'].get;
    expect(op.operationId).toBe('getMetricsSeries');
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['bucket', 'since', 'until', 'q', 'asset', 'exchange', 'execution']),
    );
    const r = await f.app.inject(`/api/metrics/series?bucket=hour&since=${since}&until=${until}`);
    expect(responseValidator(doc)('/api/metrics/series', 200, r.json())).toEqual([]);
    expect(r.headers.etag).toBeTruthy();
  });
});

/** The overview: source freshness, coverage, totals for the last 24 hours and 7 days, and charts over time. */
import { TopServices } from '../payments';
import { useMemo, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { query } from '../api';
import { Chart, type Line } from '../chart';
import { duration, iso, known, short, utc } from '../format';
import { sumDecimals } from '../../../src/domain/money';
import { METRICS_WINDOW, successRate } from '../../../src/domain/metrics';
import { ApiLink, ChainDisclaimer, DataTable, Facts, Show, useApi, useTitle, type Loaded } from '../ui';
import type { Coverage, List, Series, Status } from '../types';

const HOUR = 3600;
const DAY = 86_400;
const EXECUTION_COLORS = { success: '#1a7f37', failed: '#c62828', unknown: '#555555' } as const;
const ASSET_COLORS = ['#1f5fbf', '#b35900', '#6a3d9a', '#00838f', '#ad1457', '#2e7d32', '#5d4037', '#37474f'];

function Freshness({ s }: { s: Status }) {
  const c = s.collector ?? {};
  return (
    <Facts
      items={[
        ['Lag behind the newest collected block', duration(s.lag_seconds)],
        ['Collector', known(c.state ?? 'never ran')],
        ['Finalized head seen', known(c.finalized_head)],
        [
          'Checkpoint',
          s.checkpoint ? `block ${s.checkpoint.height} (${short(s.checkpoint.hash)}), written ${iso(s.checkpoint.updated_at)}` : 'none yet',
        ],
        ['Observations stored', s.total_transactions.toLocaleString('en')],
        ['Source', known(s.source)],
        ['Collector error', c.last_error ? `${c.last_error} (${iso(c.last_error_at)})` : 'none'],
      ]}
    />
  );
}

/** The collected height intervals as a bar over [lowest, highest]: filled where collected, gaps left empty. */
function CoverageBar({ c }: { c: Coverage }) {
  if (!c.intervals.length) return <p>No blocks collected yet.</p>;
  const lo = c.intervals[0].first;
  const hi = c.intervals[c.intervals.length - 1].last;
  const span = Math.max(1, hi - lo + 1);
  const gaps = c.intervals.length - 1;
  return (
    <div>
      <div class="coverage" role="img" aria-label={`Blocks ${lo} to ${hi}: ${c.intervals.length} collected intervals, ${gaps} gaps`}>
        {c.intervals.map((i) => (
          <span
            key={i.first}
            class="covered"
            title={`blocks ${i.first}–${i.last} (${i.blocks})`}
            style={{ left: `${((i.first - lo) / span) * 100}%`, width: `max(2px, ${((i.last - i.first + 1) / span) * 100}%)` }}
          />
        ))}
      </div>
      <p class="muted">
        Blocks {lo.toLocaleString('en')} to {hi.toLocaleString('en')}: {c.intervals.length} collected interval
        {c.intervals.length === 1 ? '' : 's'}, {gaps} gap{gaps === 1 ? '' : 's'}. Gaps are blocks not collected, not blocks without
        activity.
      </p>
      <details>
        <summary>Intervals</summary>
        <ul>
          {c.intervals.slice(0, 200).map((i) => (
            <li key={i.first}>
              {i.first}–{i.last} ({i.blocks} blocks)
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}

/** Totals of one window, summed exactly from the series buckets inside it (the same rows /api/metrics aggregates). */
type Totals = { total: number; analyzed: number; nominal: string | null; fees: string | null; rate: number | null };

/**
 * The totals of [since, until) from an hourly series over a window that ends at the same `until` and holds it: the
 * series aggregates the latest METRICS_WINDOW matches of its window, which include every one of the latest of any
 * window ending at the same time, so the buckets in [since, until) hold exactly the rows /api/metrics aggregates.
 * `total` (all matches, beyond the window) comes from the caller. Sums and rate follow the server's own rules
 * (src/domain/money.ts, src/domain/metrics.ts).
 */
function totalsOf(s: Series, since: number, total: number): Totals {
  const inside = s.buckets.filter((b) => b.start >= since);
  const success = inside.reduce((n, b) => n + b.execution.success.count, 0);
  const failed = inside.reduce((n, b) => n + b.execution.failed.count, 0);
  return {
    total,
    analyzed: inside.reduce((n, b) => n + b.count, 0),
    nominal: sumDecimals(inside.map((b) => b.nominal)),
    fees: sumDecimals(inside.map((b) => b.fees)),
    rate: successRate(success, failed),
  };
}

function MetricsCard({ title, totals, sources, same }: { title: string; totals: Totals; sources: string[]; same: string }) {
  const d = totals;
  return (
    <section class="card" aria-label={title}>
      <h3>{title}</h3>
      <Facts
        items={[
          ['Observations', <span data-metric="total">{d.total.toLocaleString('en')}</span>],
          ['Nominal (listed USD)', <span data-metric="nominal">{known(d.nominal)}</span>],
          ['Fees (fee-token units)', <span data-metric="fees">{known(d.fees)}</span>],
          ['Success rate', <span data-metric="rate">{d.rate === null ? 'unknown' : `${(d.rate * 100).toFixed(1)} %`}</span>],
        ]}
      />
      {d.total > d.analyzed && (
        <p class="note">
          Sums cover the latest {d.analyzed.toLocaleString('en')} of {d.total.toLocaleString('en')} matches (the API's{' '}
          {METRICS_WINDOW.toLocaleString('en')} window).
        </p>
      )}
      {sources.map((p) => (
        <ApiLink key={p} path={p} />
      ))}
      <p class="api-link">
        The same numbers:{' '}
        <a href={same} data-metrics-api={same}>
          GET {same}
        </a>
      </p>
    </section>
  );
}

/** The 24-hour and 7-day totals, from one hourly series over 7 days and the 24-hour count. */
function Totals({ until, series }: { until: number; series: Loaded<Series> }) {
  const since24 = until - DAY;
  const countPath = `/api/transactions${query({ since: since24, until, limit: 1 })}`;
  const count = useApi<List>(countPath);
  return (
    <Show state={series} what="the totals">
      {(s) => (
        <Show state={count} what="the 24-hour count">
          {(c) => (
            <div class="grid2">
              <MetricsCard
                title="Last 24 hours"
                totals={totalsOf(s, since24, c.total)}
                sources={[seriesPath('hour', until - 7 * DAY, until), countPath]}
                same={`/api/metrics${query({ since: since24, until })}`}
              />
              <MetricsCard
                title="Last 7 days"
                totals={totalsOf(s, until - 7 * DAY, s.total)}
                sources={[seriesPath('hour', until - 7 * DAY, until)]}
                same={`/api/metrics${query({ since: until - 7 * DAY, until })}`}
              />
            </div>
          )}
        </Show>
      )}
    </Show>
  );
}

const seriesPath = (bucket: 'hour' | 'day', since: number, until: number) => `/api/metrics/series${query({ bucket, since, until })}`;

function SeriesCharts({ until, hourly }: { until: number; hourly: Loaded<Series> }) {
  const [bucket, setBucket] = useState<'hour' | 'day'>('hour');
  const dailyPath = bucket === 'day' ? seriesPath('day', until - 30 * DAY, until) : null;
  const daily = useApi<Series>(dailyPath);
  const s = bucket === 'hour' ? hourly : daily;
  return (
    <section>
      <h2>Over time</h2>
      <fieldset class="inline">
        <legend>Buckets</legend>
        <label>
          <input type="radio" name="bucket" checked={bucket === 'hour'} onChange={() => setBucket('hour')} /> hourly, last 7 days
        </label>
        <label>
          <input type="radio" name="bucket" checked={bucket === 'day'} onChange={() => setBucket('day')} /> daily, last 30 days
        </label>
      </fieldset>
      <Show state={s} what="the series">
        {(d) => <SeriesView s={d} />}
      </Show>
      <ApiLink path={dailyPath ?? seriesPath('hour', until - 7 * DAY, until)} />
    </section>
  );
}

function SeriesView({ s }: { s: Series }) {
  const { x, count, nominal, fees } = useMemo(() => {
    const x = s.buckets.map((b) => b.start);
    const num = (v: string | null) => (v === null ? null : Number(v));
    const byExecution = (pick: (p: Series['buckets'][0]['execution']['success']) => number | null): Line[] =>
      (['success', 'failed', 'unknown'] as const).map((e) => ({
        label: e,
        color: EXECUTION_COLORS[e],
        values: s.buckets.map((b) => pick(b.execution[e])),
      }));
    const nominal: Line[] = s.assets.map((a, i) => ({
      label: a.symbol,
      color: ASSET_COLORS[i % ASSET_COLORS.length],
      values: s.buckets.map((b) => num(b.assets.find((x) => x.asset_contract === a.asset_contract)?.nominal ?? null)),
    }));
    return { x, count: byExecution((p) => p.count), nominal, fees: byExecution((p) => num(p.fees)) };
  }, [s]);
  return (
    <>
      {s.truncated && (
        <p class="note">
          The series aggregates the latest {s.analyzed.toLocaleString('en')} of {s.total.toLocaleString('en')} matches: buckets before{' '}
          {utc(s.analyzed_since)} are not counted.
        </p>
      )}
      <div class="charts">
        <figure>
          <figcaption>Transactions per {s.bucket}, by execution</figcaption>
          <Chart title={`Transactions per ${s.bucket} by execution`} x={x} lines={count} />
        </figure>
        <figure>
          <figcaption>Nominal per {s.bucket}, by listed token (dollars at 1 per token)</figcaption>
          {nominal.length ? (
            <Chart title={`Nominal per ${s.bucket} by listed token`} x={x} lines={nominal} />
          ) : (
            <p>No listed-token value in this window.</p>
          )}
        </figure>
        <figure>
          <figcaption>Fees per {s.bucket}, by execution (fee-token units)</figcaption>
          <Chart title={`Fees per ${s.bucket} by execution`} x={x} lines={fees} />
        </figure>
      </div>
      <details>
        <summary>Exact values per bucket</summary>
        <DataTable label="Exact values per bucket" columns={['Bucket start (UTC)', 'Observations', 'Nominal', 'Fees']}>
          {s.buckets
            .filter((b) => b.count > 0)
            .map((b) => (
              <tr key={b.start}>
                <td>{utc(b.start)}</td>
                <td>{b.count}</td>
                <td>{known(b.nominal)}</td>
                <td>{known(b.fees)}</td>
              </tr>
            ))}
        </DataTable>
      </details>
    </>
  );
}

export function Overview() {
  useTitle('Overview');
  const status = useApi<Status>('/api/status');
  const coverage = useApi<Coverage>('/api/coverage');
  const newest = useApi<List>('/api/transactions?limit=1');
  // Windows end at the end of the newest observation's hour, so the 24-hour window is whole hourly buckets.
  const until = newest.data?.rows[0] ? Math.ceil((newest.data.rows[0].time + 1) / HOUR) * HOUR : null;
  const hourly = useApi<Series>(until === null ? null : seriesPath('hour', until - 7 * DAY, until));
  return (
    <>
      <h1>Tempo machine payments, as observed</h1>
      <ChainDisclaimer />
      <div class="grid2">
        <section class="card">
          <h2>Source freshness</h2>
          <Show state={status} what="the status">
            {(s) => <Freshness s={s} />}
          </Show>
          <ApiLink path="/api/status" />
        </section>
        <section class="card">
          <h2>Coverage</h2>
          <Show state={coverage} what="coverage">
            {(c) => <CoverageBar c={c} />}
          </Show>
          <ApiLink path="/api/coverage" />
        </section>
      </div>
      <h2>Totals</h2>
      <Show state={newest} what="the newest observation">
        {(l) =>
          until === null ? (
            <p>No observations collected yet.</p>
          ) : (
            <>
              <p class="muted">
                Windows end at {utc(until)}, the end of the hour of the newest collected observation ({utc(l.rows[0].time)});{' '}
                <Link href="/transactions">see them all</Link>.
              </p>
              <Totals until={until} series={hourly} />
              <SeriesCharts until={until} hourly={hourly} />
            </>
          )
        }
      </Show>
      <TopServices />
    </>
  );
}

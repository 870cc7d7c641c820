/** Payments received by a provider or a service, and the overview's top services by nominal received. */
import { useMemo } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { query } from './api';
import { Chart } from './chart';
import { known, short, utc } from './format';
import { ApiLink, DataTable, Facts, Show, useApi } from './ui';
import type { Payments, Ranking, Series } from './types';

/** The collected part of a window in words: gaps are unknown, never zero. */
function covered(p: Pick<Payments, 'covered_since' | 'covered_until' | 'complete'>): string {
  if (p.covered_since === null || p.covered_until === null) return 'nothing of this window is collected (unknown, not zero)';
  return `${utc(p.covered_since)} to ${utc(p.covered_until)}${p.complete ? '' : ' (with gaps: counts cover the collected part only)'}`;
}

/**
 * The `payments` summary of a provider or service: count, distinct payers, nominal received (listed USD), last
 * payment, methods and the covered window, with a link to the matching transactions.
 * @param filter the transaction list's filter that selects these payments (service_id or provider)
 */
export function PaymentsReceived({ p, filter }: { p: Payments; filter: Record<string, string> }) {
  const m = p.by_method;
  return (
    <>
      <Facts
        items={[
          ['Payments', String(p.count)],
          ['Distinct payers', String(p.distinct_payers)],
          ['Nominal received (listed USD)', known(p.nominal)],
          ['Last payment', p.last_time === null ? 'none in the window' : utc(p.last_time)],
          ['Attribution', `memo and payTo ${m.memo_and_pay_to}, memo only ${m.memo} (claimed by the payer), payTo only ${m.pay_to}`],
          ['Protocols', `mpp ${p.by_protocol.mpp.count}, x402 ${p.by_protocol.x402.count}, unknown ${p.by_protocol.unknown.count}`],
          ['Self-payments', String(p.self_payments)],
          ['Covered', covered(p)],
        ]}
      />
      <p>
        <Link href={`/transactions${query(filter)}`}>Transactions of these payments</Link>
      </p>
    </>
  );
}

/**
 * Payments received per UTC day over the last 30 days: successful transactions attributed to the service or
 * provider, from /api/metrics/series (its own window: it also counts payments whose payer is unknown, which the
 * summary leaves out), as a chart with its exact values.
 * @param filter service_id or provider
 */
export function PaymentsPerDay({ filter, p }: { filter: Record<string, string>; p: Payments }) {
  const path = `/api/metrics/series${query({ bucket: 'day', execution: 'success', ...filter })}`;
  const s = useApi<Series>(path);
  return (
    <figure data-payments-chart>
      <figcaption>
        Payments received per UTC day (successful transactions attributed here), last 30 days; collected: {covered(p)}
      </figcaption>
      <Show state={s} what="the payments per day">
        {(d) => <PerDay s={d} />}
      </Show>
      <ApiLink path={path} />
    </figure>
  );
}

function PerDay({ s }: { s: Series }) {
  const { x, lines } = useMemo(
    () => ({ x: s.buckets.map((b) => b.start), lines: [{ label: 'payments', color: '#1f5fa8', values: s.buckets.map((b) => b.count) }] }),
    [s],
  );
  const days = s.buckets.filter((b) => b.count > 0);
  return (
    <>
      <Chart title="Payments received per UTC day" x={x} lines={lines} height={160} />
      <details>
        <summary>Exact values per day ({days.length} with payments)</summary>
        <DataTable label="Payments received per day" columns={['Day (UTC)', 'Payments', 'Nominal received (listed USD)']}>
          {days.map((b) => (
            <tr key={b.start}>
              <td>{utc(b.start)}</td>
              <td>{b.count}</td>
              <td>{known(b.nominal)}</td>
            </tr>
          ))}
        </DataTable>
      </details>
    </>
  );
}

/** The overview's table: the top services of the last 30 days by nominal received. */
export function TopServices() {
  const path = '/api/rankings/services?by=nominal&limit=10';
  const r = useApi<Ranking>(path);
  return (
    <section>
      <h2>Top services by nominal received</h2>
      <Show state={r} what="the ranking">
        {(d) =>
          d.rows.length ? (
            <div data-top-services={d.rows.length}>
              <p class="muted">Last 30 days, {covered(d)}. Nominal received is listed USD at face value, not revenue.</p>
              <DataTable
                label="Top services by nominal received"
                columns={['Rank', 'Service', 'Provider', 'Payments', 'Distinct payers', 'Nominal received (listed USD)']}
              >
                {d.rows.map((x) => (
                  <tr key={x.service_id}>
                    <td>{x.rank}</td>
                    <td>
                      <Link href={`/service/${x.service_id}`}>{short(x.service_id)}</Link>
                    </td>
                    <td>{x.provider ? <Link href={`/providers/${encodeURIComponent(x.provider)}`}>{x.provider}</Link> : 'unknown'}</td>
                    <td>{x.payments}</td>
                    <td>{x.distinct_payers}</td>
                    <td>{known(x.nominal)}</td>
                  </tr>
                ))}
              </DataTable>
            </div>
          ) : (
            <p data-top-services="0">No attributed payments in the collected part of the last 30 days.</p>
          )
        }
      </Show>
      <ApiLink path={path} />
    </section>
  );
}

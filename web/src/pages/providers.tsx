/** Providers: search, a provider's profile with offers, dated checks and change timeline, a service's history. */
import { useEffect, useState } from 'preact/hooks';
import { Link, useLocation, useSearch } from 'wouter-preact';
import { query } from '../api';
import { PaymentsPerDay, PaymentsReceived } from '../payments';
import { iso, known, SERVICE_ID, short } from '../format';
import { ApiLink, DataTable, ErrorBox, Hex, Json, OfferDisclaimer, Show, useApi, useTitle } from '../ui';
import type { Change, Changes, Check, History, Offer, Payments, ProviderProfile, Providers as ProviderList } from '../types';

/** Offers as a table: exact amounts, network, asset, payTo. */
export function Offers({
  offers,
}: {
  offers: Pick<Offer, 'protocol' | 'scheme' | 'amount' | 'amount_atomic' | 'network' | 'asset' | 'pay_to'>[];
}) {
  if (!offers.length) return <p>No parseable offer.</p>;
  return (
    <DataTable label="Offers" columns={['Protocol', 'Amount', 'Network', 'Asset', 'payTo']}>
      {offers.map((o, i) => (
        <tr key={i}>
          <td>
            {known(o.protocol)} {o.scheme ? `(${o.scheme})` : ''}
          </td>
          <td>
            {known(o.amount)} <span class="muted">({known(o.amount_atomic)} atomic)</span>
          </td>
          <td>{known(o.network)}</td>
          <td>
            <code>
              <bdi>{known(o.asset)}</bdi>
            </code>
          </td>
          <td>
            <Hex value={o.pay_to} />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

function Checks({ checks }: { checks: Check[] }) {
  return (
    <ul class="checks">
      {checks.map((c) => (
        <li key={c.snapshot_id}>
          {iso(c.checked_at)}: <strong>{c.outcome}</strong> (HTTP {known(c.http_status)}
          {c.latency_ms !== null ? `, ${c.latency_ms} ms` : ''}){c.error ? ` — ${c.error}` : ''}
          <br />
          <span class="muted">
            snapshot <code>{c.snapshot_id}</code>, evidence sha256 <code>{known(c.evidence_hash)}</code>
          </span>
        </li>
      ))}
    </ul>
  );
}

/** One side (before or after) of a change record: an object of members, or null (none). */
const side = (x: unknown): Record<string, unknown> | null => (x && typeof x === 'object' ? (x as Record<string, unknown>) : null);

/** What a change moved, member by member: "pay_to: 0x… → 0x…". */
function ChangeItem({ c }: { c: Change }) {
  const before = side(c.before);
  const after = side(c.after);
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].filter(
    (k) => JSON.stringify(before?.[k]) !== JSON.stringify(after?.[k]),
  );
  return (
    <li data-change={c.kind}>
      <time dateTime={c.at}>{iso(c.at)}</time>: <strong>{c.kind.replace(/_/g, ' ')}</strong>
      <ul>
        {keys.map((k) => (
          <li key={k}>
            {k}:{' '}
            <code>
              <bdi>{before ? known(before[k]) : 'none'}</bdi>
            </code>{' '}
            →{' '}
            <code>
              <bdi>{after ? known(after[k]) : 'none'}</bdi>
            </code>
          </li>
        ))}
      </ul>
      <span class="muted">
        snapshots <code>{known(c.before_snapshot_id)}</code> → <code>{known(c.after_snapshot_id)}</code>; service{' '}
        <Link href={`/service/${c.service_id}`}>{short(c.service_id)}</Link>
      </span>
    </li>
  );
}

export function Providers() {
  useTitle('Providers');
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const q = params.get('q') ?? '';
  const network = params.get('network') ?? '';
  const offset = Number(params.get('offset') ?? '0') || 0;
  const [form, setForm] = useState({ q, network });
  useEffect(() => setForm({ q, network }), [search]);
  const path = `/api/providers${query({ q, network, offset: offset || undefined })}`;
  const list = useApi<ProviderList>(path);
  return (
    <>
      <h1>Providers</h1>
      <OfferDisclaimer />
      <form
        class="filters"
        aria-label="Search providers"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(`/providers${query(form)}`);
        }}
      >
        <label>
          Search
          <input
            name="q"
            value={form.q}
            placeholder="domain, URL or description"
            onInput={(e) => setForm({ ...form, q: (e.target as HTMLInputElement).value })}
          />
        </label>
        <label>
          Network
          <input
            name="network"
            value={form.network}
            placeholder="e.g. eip155:4217"
            onInput={(e) => setForm({ ...form, network: (e.target as HTMLInputElement).value })}
          />
        </label>
        <div class="buttons">
          <button type="submit">Search</button>
        </div>
      </form>
      <Show state={list} what="providers">
        {(l) => (
          <>
            <p aria-live="polite">{l.total.toLocaleString('en')} providers.</p>
            <ul class="providers">
              {l.providers.map((p) => (
                <li key={p.domain}>
                  <Link href={`/providers/${encodeURIComponent(p.domain)}`}>
                    <strong>
                      <bdi>{p.domain}</bdi>
                    </strong>
                  </Link>{' '}
                  {p.stale && <span class="badge warn">stale</span>}
                  <br />
                  {p.services_total} service(s) · {p.protocols.join(', ') || 'unknown protocol'} ·{' '}
                  {p.networks.join(', ') || 'unknown network'}
                  <br />
                  {p.prices.map((x, i) => (
                    <span key={i} class="price">
                      {x.min_amount === x.max_amount ? known(x.min_amount) : `${known(x.min_amount)}–${known(x.max_amount)}`} of{' '}
                      <code>
                        <bdi>{short(x.asset)}</bdi>
                      </code>{' '}
                      on <bdi>{x.network}</bdi>
                    </span>
                  ))}
                  <br />
                  <span class="muted">
                    latest check: {p.latest_check ? `${iso(p.latest_check.checked_at)}, ${p.latest_check.outcome}` : 'none'}
                  </span>
                </li>
              ))}
            </ul>
            <nav class="pager" aria-label="Pages">
              {offset > 0 && (
                <Link href={`/providers${query({ q, network, offset: Math.max(0, offset - l.limit) || undefined })}`}>← Previous</Link>
              )}
              {offset + l.providers.length < l.total && (
                <Link href={`/providers${query({ q, network, offset: offset + l.limit })}`}>Next →</Link>
              )}
            </nav>
          </>
        )}
      </Show>
      <ApiLink path={path} />
    </>
  );
}

/** Decodes a path segment, or null when it is not valid percent-encoding. */
function decoded(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

export function Provider({ domain: raw }: { domain: string }) {
  useTitle('Provider');
  const domain = decoded(raw);
  const path = domain ? `/api/providers/${encodeURIComponent(domain)}` : null;
  const changesPath = domain ? `/api/intelligence/changes${query({ domain, limit: 100 })}` : null;
  const p = useApi<ProviderProfile>(path);
  const changes = useApi<Changes>(changesPath);
  if (!domain || !path || !changesPath) return <ErrorBox error="This provider address is not valid percent-encoding." />;
  return (
    <>
      <h1>
        Provider <bdi>{domain}</bdi>
      </h1>
      <Show state={p} what="the provider">
        {(d) => (
          <>
            <OfferDisclaimer text={d.disclaimer} />
            <p class="muted">
              First seen {iso(d.provider.first_seen)}, last seen {iso(d.provider.last_seen)}.
            </p>
            <section class="card">
              <h2>Payments received (last 30 days)</h2>
              <PaymentsReceived p={d.provider.payments} filter={{ provider: d.provider.domain }} />
              <PaymentsPerDay p={d.provider.payments} filter={{ provider: d.provider.domain }} />
            </section>
            {d.provider.services.map((s) => (
              <section key={s.service_id} class="card">
                <h2>
                  {s.method} <bdi>{s.url}</bdi>
                </h2>
                {s.description && (
                  <p class="description">
                    <bdi>{s.description}</bdi>
                  </p>
                )}
                {s.stale && <p class="badge warn">stale: failing for a week or more</p>}
                <p class="muted">
                  Service id <code>{s.service_id}</code> — <Link href={`/service/${s.service_id}`}>history</Link>
                </p>
                <h3>Payments received (last 30 days)</h3>
                <PaymentsReceived p={s.payments} filter={{ service_id: s.service_id }} />
                <h3>Offers (latest check)</h3>
                <Offers offers={s.offers} />
                <h3>Dated checks</h3>
                <Checks checks={s.checks} />
              </section>
            ))}
          </>
        )}
      </Show>
      <ApiLink path={path} />
      <section>
        <h2>Change timeline</h2>
        <Show state={changes} what="the changes">
          {(c) =>
            c.changes.length ? (
              <>
                <p class="disclaimer">{c.disclaimer}</p>
                <ol class="timeline">
                  {c.changes.map((x) => (
                    <ChangeItem key={x.id} c={x} />
                  ))}
                </ol>
              </>
            ) : (
              <p>No recorded changes.</p>
            )
          }
        </Show>
        <ApiLink path={changesPath} />
      </section>
    </>
  );
}

export function Service({ id }: { id: string }) {
  useTitle('Service history');
  const valid = SERVICE_ID.test(id);
  const path = `/api/intelligence/history${query({ service_id: id, limit: 100 })}`;
  const h = useApi<History>(valid ? path : null);
  const paymentsPath = `/api/payments${query({ service_id: id })}`;
  const payments = useApi<{ payments: Payments }>(valid ? paymentsPath : null);
  if (!valid) return <ErrorBox error={`"${id.slice(0, 80)}" is not a service id: expected 64 lower-case hexadecimal digits.`} />;
  return (
    <>
      <h1>Service history</h1>
      <p>
        <Hex value={id} />
      </p>
      <section class="card">
        <h2>Payments received (last 30 days)</h2>
        <Show state={payments} what="the payments received">
          {({ payments: p }) => (
            <>
              <PaymentsReceived p={p} filter={{ service_id: id }} />
              <PaymentsPerDay p={p} filter={{ service_id: id }} />
            </>
          )}
        </Show>
        <ApiLink path={paymentsPath} />
      </section>
      <Show state={h} what="the history">
        {(d) => (
          <>
            <OfferDisclaimer text={d.disclaimer} />
            <p>
              {d.total} dated checks
              {d.checks[0] ? (
                <>
                  {' '}
                  of{' '}
                  <Link href={`/providers/${encodeURIComponent(d.checks[0].domain)}`}>
                    <bdi>{d.checks[0].domain}</bdi>
                  </Link>
                </>
              ) : null}
              .
            </p>
            <ol class="timeline">
              {d.checks.map((c) => (
                <li key={c.snapshot_id}>
                  {iso(c.checked_at)}: <strong>{c.outcome}</strong> (HTTP {known(c.http_status)})
                  <br />
                  <span class="muted">
                    snapshot <code>{c.snapshot_id}</code>, evidence sha256 <code>{known(c.evidence_hash)}</code>
                  </span>
                  <Offers offers={c.offers} />
                </li>
              ))}
            </ol>
            <Json value={d} summary="The whole answer" />
          </>
        )}
      </Show>
      <ApiLink path={path} />
    </>
  );
}

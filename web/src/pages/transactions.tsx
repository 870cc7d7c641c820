/** The transaction list with every filter of /api/transactions, stable pagination (fixed until) and an export link. */
import { useEffect, useState } from 'preact/hooks';
import { Link, useLocation, useSearch } from 'wouter-preact';
import { query } from '../api';
import { known, short, utc } from '../format';
import { ApiLink, ChainDisclaimer, DataTable, ErrorBox, Show, useApi, useTitle } from '../ui';
import type { List, Row } from '../types';

const FILTERS = ['q', 'asset', 'exchange', 'execution', 'since', 'until'] as const;

/** "2026-11-25T03:44" (a datetime-local value, read as UTC) ↔ Unix seconds. */
const toInput = (s: string | null) => (s && /^\d+$/.test(s) ? new Date(Number(s) * 1000).toISOString().slice(0, 16) : '');
const fromInput = (v: string) => (v ? String(Math.floor(Date.parse(`${v}:00Z`) / 1000)) : '');

/** A listed/unlisted badge for an asset. */
export function Listed({ listed }: { listed: boolean | null }) {
  if (listed === null) return null;
  return <span class={listed ? 'badge ok' : 'badge warn'}>{listed ? 'listed' : 'not listed'}</span>;
}

/** Rows as a table; wallets and hashes link to their pages. */
export function RowsTable({ rows, wallet }: { rows: Row[]; wallet?: string }) {
  if (!rows.length) return <p>No matching observations (which is not proof of no activity).</p>;
  return (
    <DataTable
      label="Observations"
      columns={['Time (UTC)', 'Transaction', 'From → to', 'Amount', 'Nominal', 'Fee', 'Execution', 'Kind', 'Integrity']}
      className="rows"
    >
      {rows.map((r) => (
        <tr key={r.hash} data-hash={r.hash}>
          <td>{utc(r.time)}</td>
          <td>
            <Link href={`/tx/${r.hash}`}>
              <code>{short(r.hash)}</code>
            </Link>
          </td>
          <td>
            {r.sender ? (
              r.sender === wallet ? (
                <code>{short(r.sender)}</code>
              ) : (
                <Link href={`/wallet/${r.sender}`}>
                  <code>{short(r.sender)}</code>
                </Link>
              )
            ) : (
              'unknown'
            )}{' '}
            →{' '}
            {r.recipient ? (
              r.recipient === wallet ? (
                <code>{short(r.recipient)}</code>
              ) : (
                <Link href={`/wallet/${r.recipient}`}>
                  <code>{short(r.recipient)}</code>
                </Link>
              )
            ) : (
              'unknown'
            )}
          </td>
          <td>
            {known(r.amount)} <bdi>{r.asset ?? (r.asset_contract ? short(r.asset_contract) : '')}</bdi> <Listed listed={r.asset_listed} />
          </td>
          <td>{known(r.nominal)}</td>
          <td>{known(r.fee)}</td>
          <td class={`exec ${r.execution}`}>{r.execution}</td>
          <td>
            {known(r.category)}
            {r.protocol ? ` · ${r.protocol}` : ''}
            {r.exchange ? (
              <>
                {' · '}
                <bdi>{r.exchange}</bdi>
              </>
            ) : (
              ''
            )}
          </td>
          <td>
            {r.integrity.score}/{r.integrity.maximum}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

export function Transactions() {
  useTitle('Transactions');
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const limit = params.get('limit') ?? '30';
  const offset = Number(params.get('offset') ?? '0') || 0;
  const filters = Object.fromEntries(FILTERS.map((k) => [k, params.get(k) ?? ''])) as Record<(typeof FILTERS)[number], string>;
  const [form, setForm] = useState(filters);
  useEffect(() => setForm(filters), [search]);
  const path = `/api/transactions${query({ ...filters, limit, offset: offset || undefined })}`;
  const list = useApi<List>(path);
  const exportPath = `/api/export${query(filters)}`;
  const [formError, setFormError] = useState<string | null>(null);

  const submit = (e: Event) => {
    e.preventDefault();
    if (form.since && form.until && Number(form.since) >= Number(form.until)) return setFormError('"Since" must be before "until".');
    setFormError(null);
    navigate(`/transactions${query({ ...form })}`);
  };
  const field = (k: 'q' | 'asset' | 'exchange', label: string, hint: string) => (
    <label>
      {label}
      <input
        name={k}
        value={form[k]}
        maxLength={140}
        placeholder={hint}
        onInput={(e) => setForm({ ...form, [k]: (e.target as HTMLInputElement).value })}
      />
    </label>
  );
  const page = (o: number, fixedUntil: string) =>
    `/transactions${query({ ...filters, until: fixedUntil, limit: limit === '30' ? undefined : limit, offset: o || undefined })}`;

  return (
    <>
      <h1>Transactions</h1>
      <ChainDisclaimer />
      <form class="filters" onSubmit={submit} aria-label="Filters">
        {field('q', 'Search', 'wallet, hash, symbol or venue')}
        {field('asset', 'Asset', 'token contract or symbol')}
        {field('exchange', 'Exchange', 'venue name, or unknown')}
        <label>
          Execution
          <select
            name="execution"
            value={form.execution}
            onChange={(e) => setForm({ ...form, execution: (e.target as HTMLSelectElement).value })}
          >
            <option value="">any</option>
            <option value="success">success</option>
            <option value="failed">failed</option>
            <option value="unknown">unknown</option>
          </select>
        </label>
        <label>
          Since (UTC, inclusive)
          <input
            type="datetime-local"
            name="since"
            value={toInput(form.since)}
            onInput={(e) => setForm({ ...form, since: fromInput((e.target as HTMLInputElement).value) })}
          />
        </label>
        <label>
          Until (UTC, exclusive)
          <input
            type="datetime-local"
            name="until"
            value={toInput(form.until)}
            onInput={(e) => setForm({ ...form, until: fromInput((e.target as HTMLInputElement).value) })}
          />
        </label>
        <div class="buttons">
          <button type="submit">Apply filters</button>
          <button
            type="button"
            onClick={() => {
              setForm(Object.fromEntries(FILTERS.map((k) => [k, ''])) as typeof form);
              navigate('/transactions');
            }}
          >
            Clear
          </button>
        </div>
      </form>
      {formError && <ErrorBox error={formError} />}
      <p>
        <a href={exportPath} download>
          Export these filters as CSV
        </a>{' '}
        <span class="muted">(newest 10,000 matches; GET {exportPath})</span>
      </p>
      <Show state={list} what="transactions">
        {(l) => {
          // Later pages keep the newest row's time as `until`, so rows collected meanwhile cannot shift them.
          const fixedUntil = filters.until || (l.rows[0] ? String(l.rows[0].time + 1) : '');
          return (
            <>
              <p aria-live="polite">
                {l.total.toLocaleString('en')} matching observations; showing{' '}
                {l.rows.length ? `${offset + 1}–${offset + l.rows.length}` : 'none'}, as of {l.as_of}.
              </p>
              <RowsTable rows={l.rows} />
              <nav class="pager" aria-label="Pages">
                {offset > 0 && <Link href={page(Math.max(0, offset - Number(limit)), fixedUntil)}>← Newer</Link>}
                {offset + l.rows.length < l.total && offset + Number(limit) <= 1_000_000 && (
                  <Link href={page(offset + Number(limit), fixedUntil)}>Older →</Link>
                )}
              </nav>
            </>
          );
        }}
      </Show>
      <ApiLink path={path} />
    </>
  );
}

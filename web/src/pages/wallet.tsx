/** A wallet: observations where it sends or receives, with exact totals per asset over what was loaded. */
import { useEffect, useState } from 'preact/hooks';
import { type ApiError, getJson, query } from '../api';
import { ADDRESS, short } from '../format';
import { sumDecimals } from '../../../src/domain/money';
import { ApiLink, ChainDisclaimer, DataTable, ErrorBox, Hex, useTitle } from '../ui';
import type { List, Row } from '../types';
import { Listed, RowsTable } from './transactions';

const PAGE = 100;

/** Exact totals of the primary legs per token: what the wallet sent and received among `rows`. */
function totals(rows: Row[], wallet: string) {
  const by = new Map<string, { symbol: string | null; listed: boolean | null; sent: string[]; received: string[]; n: number }>();
  for (const r of rows) {
    if (!r.asset_contract || r.amount === null) continue;
    const t = by.get(r.asset_contract) ?? { symbol: r.asset, listed: r.asset_listed, sent: [], received: [], n: 0 };
    t.n++;
    if (r.sender === wallet) t.sent.push(r.amount);
    if (r.recipient === wallet) t.received.push(r.amount);
    by.set(r.asset_contract, t);
  }
  return [...by].map(([contract, t]) => ({ contract, ...t, sentSum: sumDecimals(t.sent), receivedSum: sumDecimals(t.received) }));
}

export function Wallet({ address }: { address: string }) {
  useTitle('Wallet');
  const wallet = address.toLowerCase();
  const valid = ADDRESS.test(address);
  const [rows, setRows] = useState<Row[]>([]);
  const [total, setTotal] = useState<number | null>(null);
  const [until, setUntil] = useState<number | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(false);
  const path = (offset: number, u: number | null) =>
    `/api/transactions${query({ q: wallet, limit: PAGE, offset: offset || undefined, until: u ?? undefined })}`;

  const load = async (offset: number, u: number | null, before: Row[]) => {
    setLoading(true);
    try {
      const l = await getJson<List>(path(offset, u));
      const fixed = u ?? (l.rows[0] ? l.rows[0].time + 1 : null);
      setUntil(fixed);
      setTotal(l.total);
      setRows([...before, ...l.rows.filter((r) => !before.some((b) => b.hash === r.hash))]);
      setError(null);
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => {
    setRows([]);
    setTotal(null);
    setUntil(null);
    if (valid) void load(0, null, []);
  }, [wallet]);

  if (!valid)
    return (
      <>
        <h1>Wallet</h1>
        <ErrorBox error={`"${address.slice(0, 80)}" is not a wallet address: expected 0x followed by 40 hexadecimal digits.`} />
      </>
    );
  const sums = totals(rows, wallet);
  return (
    <>
      <h1>Wallet</h1>
      <p>
        <Hex value={wallet} />
      </p>
      <ChainDisclaimer />
      {error && <ErrorBox error={error} what="Could not load the wallet's observations" />}
      {total !== null && (
        <>
          <p aria-live="polite">
            {total.toLocaleString('en')} observations where this wallet sends or receives; {rows.length.toLocaleString('en')} loaded.
          </p>
          <h2>Totals per asset</h2>
          <p class="muted">
            Exact sums of the primary leg of the {rows.length} loaded observations (a transaction's other legs are on its page).
          </p>
          {sums.length ? (
            <DataTable label="Totals per asset" columns={['Asset', 'Observations', 'Sent', 'Received']}>
              {sums.map((t) => (
                <tr key={t.contract}>
                  <td>
                    <bdi>{t.symbol ?? short(t.contract)}</bdi> <Listed listed={t.listed} /> <code class="muted">{short(t.contract)}</code>
                  </td>
                  <td>{t.n}</td>
                  <td>{t.sentSum ?? 'none'}</td>
                  <td>{t.receivedSum ?? 'none'}</td>
                </tr>
              ))}
            </DataTable>
          ) : (
            <p>No token amounts among the loaded observations.</p>
          )}
          <h2>Observations</h2>
          <RowsTable rows={rows} wallet={wallet} />
          {rows.length < total && (
            <button type="button" disabled={loading} onClick={() => void load(rows.length, until, rows)}>
              {loading ? 'Loading…' : `Load ${Math.min(PAGE, total - rows.length)} more`}
            </button>
          )}
        </>
      )}
      {loading && total === null && <p class="muted">Loading the wallet's observations…</p>}
      <ApiLink path={path(0, until)} />
    </>
  );
}

/** One transaction: integrity checklist, legs as a flow, 0x76 calls, fee and payer, memo, evidence, forensics. */
import type { ComponentChildren } from 'preact';
import { Link } from 'wouter-preact';
import { HASH, known, utc } from '../format';
import { ApiLink, ChainDisclaimer, ErrorBox, Facts, Hex, Json, Show, useApi, useTitle } from '../ui';
import type { Detail } from '../types';
import { Listed } from './transactions';

const MARK = { pass: '✓', fail: '✗', unknown: '?' } as const;

function Integrity({ d }: { d: Detail }) {
  const i = d.integrity;
  return (
    <section>
      <h2>
        Integrity: <span data-integrity-score={i.score}>{i.score}</span> of {i.maximum}
      </h2>
      <p class="muted">
        Scope: {i.scope}; rules version {i.version}. Independent consensus verified: {i.independent_consensus_verified ? 'yes' : 'no'}. The
        score describes evidence, not honesty or task success.
      </p>
      <ol class="checklist">
        {i.stages.map((s) => (
          <li key={s.level} class={`stage ${s.status}`}>
            <span class="mark" aria-hidden="true">
              {MARK[s.status] ?? '?'}
            </span>{' '}
            <strong>
              Stage {s.level}: {s.label}
            </strong>{' '}
            — {s.status}
            <p class="reason">{s.reason}</p>
          </li>
        ))}
      </ol>
    </section>
  );
}

function Legs({ legs }: { legs: NonNullable<Detail['legs']> }) {
  if (!legs.length) return <p>No token movements besides the fee.</p>;
  return (
    <ol class="legs">
      {legs.map((g) => (
        <li key={g.log_index} class="leg">
          <span class="party">
            <Link href={`/wallet/${g.from}`}>
              <code>{g.from}</code>
            </Link>
          </span>
          <span class="arrow" role="img" aria-label="sends to">
            →
          </span>
          <span class="party">
            <Link href={`/wallet/${g.to}`}>
              <code>{g.to}</code>
            </Link>
          </span>
          <span class="amount">
            {g.amount} <bdi>{g.asset ?? 'unknown symbol'}</bdi> <Listed listed={g.asset_listed} />
          </span>
          <span class="muted">
            token <code>{g.asset_contract}</code>
            {g.kind && g.kind !== 'transfer' ? ` · ${g.kind}` : ''} · log {g.log_index}
            {g.attribution?.method ? ` · attributed by ${g.attribution.method} to ${g.attribution.candidates.length} service(s)` : ''}
          </span>
          {g.memo && (
            <span class="memo">
              memo <code>{g.memo}</code>
              {g.memo.startsWith('0xef1ed712') ? ' (MPP-tagged)' : ''}
            </span>
          )}
        </li>
      ))}
    </ol>
  );
}

export function Transaction({ hash }: { hash: string }) {
  useTitle('Transaction');
  const valid = HASH.test(hash);
  const path = `/api/transactions/${encodeURIComponent(hash)}`;
  const t = useApi<Detail>(valid ? path : null);
  if (!valid)
    return (
      <>
        <h1>Transaction</h1>
        <ErrorBox error={`"${hash.slice(0, 80)}" is not a transaction hash: expected 0x followed by 64 hexadecimal digits.`} />
      </>
    );
  return (
    <>
      <h1>Transaction</h1>
      <p>
        <Hex value={hash.toLowerCase()} />
      </p>
      <Show state={t} what="the transaction">
        {(d) => {
          const memos = (d.legs ?? []).filter((g) => g.memo);
          const ev = d.evidence ?? {};
          return (
            <>
              <Facts
                items={[
                  ['Time', utc(d.time)],
                  ['Block', String(d.height)],
                  ['Execution', <span class={`exec ${d.execution}`}>{d.execution}</span>],
                  ['Category', known(d.category)],
                  ['Protocol', known(d.protocol)],
                  ['Exchange', <bdi>{known(d.exchange)}</bdi>],
                  ['Sender', d.sender ? <Hex value={d.sender} href={`/wallet/${d.sender}`} /> : 'unknown'],
                  ['Recipient', d.recipient ? <Hex value={d.recipient} href={`/wallet/${d.recipient}`} /> : 'unknown'],
                  ...paymentFacts(d),
                  [
                    'Amount',
                    <>
                      {known(d.amount)} <bdi>{d.asset ?? ''}</bdi> <Listed listed={d.asset_listed} />
                    </>,
                  ],
                  ['Nominal (listed USD)', known(d.nominal)],
                  ['Fee (fee-token units)', known(d.fee)],
                  ['Fee token', <Hex value={d.receipt?.fee_token ?? null} />],
                  [
                    'Fee payer',
                    d.receipt?.fee_payer ? <Hex value={d.receipt.fee_payer} href={`/wallet/${d.receipt.fee_payer}`} /> : 'unknown',
                  ],
                  ['Decoded', d.decode],
                ]}
              />
              <Integrity d={d} />
              <section>
                <h2>Legs</h2>
                {d.legs ? <Legs legs={d.legs} /> : <p>unknown (not retained for this observation)</p>}
              </section>
              {d.calls && d.calls.length > 0 && (
                <section>
                  <h2>Calls of the batch</h2>
                  <ol class="calls">
                    {d.calls.map((c) => (
                      <li key={c.index}>
                        <strong>{c.function ?? 'unknown function'}</strong> on <code>{known(c.target)}</code> (selector{' '}
                        <code>{known(c.selector)}</code>){c.args && <pre>{JSON.stringify(c.args, null, 2)}</pre>}
                      </li>
                    ))}
                  </ol>
                </section>
              )}
              {memos.length > 0 && (
                <section>
                  <h2>Memo</h2>
                  {memos.map((g) => (
                    <p key={g.log_index}>
                      <Hex value={g.memo!} /> {g.memo!.startsWith('0xef1ed712') ? '— MPP-tagged memo' : ''}
                    </p>
                  ))}
                </section>
              )}
              <section>
                <h2>Evidence</h2>
                <Facts
                  items={[
                    ['Block hash', <Hex value={typeof ev.block_hash === 'string' ? ev.block_hash : null} />],
                    ['Index in block', known(ev.tx_index ?? ev.transaction_index)],
                    ['Read from', known(ev.source)],
                    ['Read at', known(ev.fetched_at)],
                    ['Finalized head when read', known(ev.finalized_height)],
                    ['Roots checked', Array.isArray(ev.roots_checked) ? ev.roots_checked.join(', ') : 'see the integrity stages'],
                  ]}
                />
              </section>
              <section>
                <h2>Forensics</h2>
                {d.forensics?.length ? (
                  <ul>
                    {d.forensics.map((f, i) => (
                      <li key={i}>
                        <strong>{known(f.kind)}</strong>: <pre>{JSON.stringify(f, null, 2)}</pre>
                      </li>
                    ))}
                  </ul>
                ) : (
                  <p>Nothing odd noted.</p>
                )}
              </section>
              <section>
                <h2>Unknown logs</h2>
                {d.unknown?.length ? <Json value={d.unknown} summary={`${d.unknown.length} log(s) no known ABI decodes`} /> : <p>None.</p>}
              </section>
              <Json value={d.transaction} summary="The node's transaction" />
              <Json value={d.receipt} summary="Receipt and logs" />
            </>
          );
        }}
      </Show>
      <ChainDisclaimer />
      <ApiLink path={path} />
    </>
  );
}

/** How a method tied a payment to a service, in words. */
const METHOD_WORDS = {
  memo_and_pay_to: "memo and payTo (the memo names the service's realm and the money went to a payTo it advertised)",
  pay_to: 'payTo (the money went to a payTo the service advertised)',
  memo: 'memo only (claimed by the payer: anyone can write any memo)',
} as const;

/**
 * Who paid and what for (docs/payments.md): the payer of the transfer to the recipient (not necessarily the sender),
 * the service it is attributed to and how. Members read defensively: details stored before them lack them.
 */
function paymentFacts(x: Detail): [string, ComponentChildren][] {
  const out: [string, ComponentChildren][] = [['Payer', x.payer ? <Hex value={x.payer} href={`/wallet/${x.payer}`} /> : 'unknown']];
  const a = x.attribution ?? null;
  const method = x.attribution_method ?? a?.method ?? null;
  out.push([
    'Service paid',
    x.service_id ? (
      <>
        <Link href={`/service/${x.service_id}`}>{x.service_id.slice(0, 12)}…</Link>
        {x.provider ? ` (${x.provider})` : ''}
      </>
    ) : (
      'not attributed'
    ),
  ]);
  out.push([
    'Attribution',
    <span data-attribution={method ?? 'none'}>
      {method ? METHOD_WORDS[method] : 'none'}
      {a?.ambiguous ? ' — ambiguous: several services match' : ''}
    </span>,
  ]);
  if (a?.candidates.length)
    out.push([
      'Candidate services',
      <ul class="candidates" data-candidates={a.candidates.length}>
        {a.candidates.map((c) => (
          <li key={c}>
            <Link href={`/service/${c}`}>{c.slice(0, 12)}…</Link>
          </li>
        ))}
      </ul>,
    ]);
  if (a?.server_fingerprint)
    out.push(['Attribution memo', `server ${a.server_fingerprint}, client ${a.client_fingerprint ?? 'anonymous'}, nonce ${a.nonce}`]);
  if (x.settlement) out.push(['Settlement', x.settlement === 'eip3009' ? 'EIP-3009 authorization' : 'Permit2 through an x402 proxy']);
  return out;
}

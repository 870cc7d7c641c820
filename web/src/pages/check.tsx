/**
 * The trust check: a URL is checked by the trust-check listener (its address from the manifest) with a free key,
 * issued once and kept in this browser's storage. The listener allows this page's origin for these two calls only.
 */
import { useState } from 'preact/hooks';
import { type ApiError, getJson, postJson } from '../api';
import { iso, known } from '../format';
import { ApiLink, ErrorBox, Hex, OfferDisclaimer, useTitle } from '../ui';
import type { CheckAnswer, Manifest } from '../types';
import { Offers } from './providers';

const KEY_STORAGE = 'paywatch.trust-check.key';

/** The key kept in this browser, or null (storage may be disabled). */
function storedKey(): string | null {
  try {
    return localStorage.getItem(KEY_STORAGE);
  } catch {
    return null;
  }
}

export function Check() {
  useTitle('Trust check');
  const [url, setUrl] = useState('');
  const [answer, setAnswer] = useState<CheckAnswer | null>(null);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [busy, setBusy] = useState(false);
  const [key, setKey] = useState(storedKey());
  const [checkUrl, setCheckUrl] = useState<string | null>(null);
  const [idleDays, setIdleDays] = useState<number | null>(null);

  const run = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setAnswer(null);
    try {
      const target = checkUrl ?? (await getJson<Manifest>('/.well-known/paywatch.json')).trust_check.url;
      setCheckUrl(target);
      let k = key;
      if (!k) {
        const issued = await postJson<{ key: string; expires_after_idle_days?: number }>(
          target.replace(/\/v1\/check$/, '/v1/keys'),
          undefined,
        );
        k = issued.key;
        setIdleDays(issued.expires_after_idle_days ?? null);
        try {
          localStorage.setItem(KEY_STORAGE, k);
        } catch {
          // storage disabled: the key lives as long as the page
        }
        setKey(k);
      }
      setAnswer(await postJson<CheckAnswer>(target, { url }, k));
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1>Trust check</h1>
      <p>
        Should an agent pay this URL? The check fetches it once without paying and weighs its 402 challenge against provider history, chain
        observations and ownership proofs.
      </p>
      <form class="filters" onSubmit={run} aria-label="Check a URL">
        <label class="wide">
          Paid URL
          <input
            name="url"
            type="url"
            required
            value={url}
            placeholder="https://api.example.com/paid"
            onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
          />
        </label>
        <div class="buttons">
          <button type="submit" disabled={busy}>
            {busy ? 'Checking…' : 'Check'}
          </button>
        </div>
      </form>
      <p class="muted">
        {key
          ? `A free key is kept in this browser for these checks; it expires when unused for ${idleDays ?? 'the days the trust-check listener states'}${idleDays ? ' days' : ''}.`
          : 'The first check issues a free key (1,000 checks a month), shown once and kept only in this browser; a free key unused for a while expires (the listener states how long).'}{' '}
        {key && (
          <button
            type="button"
            onClick={() => {
              try {
                localStorage.removeItem(KEY_STORAGE);
              } catch {
                // nothing kept
              }
              setKey(null);
            }}
          >
            Forget the key
          </button>
        )}
      </p>
      {error && <ErrorBox error={error} what="The check failed" />}
      {answer && (
        <section aria-live="polite">
          <h2>
            Verdict:{' '}
            <span class={`verdict ${answer.verdict}`} data-verdict={answer.verdict}>
              {answer.verdict.replace(/_/g, ' ')}
            </span>
          </h2>
          <p class="muted">
            <bdi>{answer.url}</bdi>, checked {iso(answer.checked_at)}.
          </p>
          <h3>Reasons</h3>
          <ul class="reasons">
            {answer.reasons.map((r, i) => (
              <li key={i} class={`severity ${r.severity}`}>
                <span class="badge">{r.severity}</span> <code>{r.code}</code>: {r.message}
              </li>
            ))}
          </ul>
          <h3>Offers seen now</h3>
          <Offers offers={answer.offers ?? []} />
          <p class="muted">
            Snapshot <code>{known(answer.snapshot_id)}</code>, evidence <Hex value={answer.evidence_hash ?? null} />
          </p>
          {(answer.disclaimers ?? []).map((d, i) => (
            <p key={i} class="disclaimer">
              {d}
            </p>
          ))}
        </section>
      )}
      <OfferDisclaimer />
      {checkUrl ? (
        <p class="api-link">Data: POST {checkUrl}</p>
      ) : (
        <ApiLink path="/.well-known/paywatch.json" label="Trust-check address from" />
      )}
    </>
  );
}

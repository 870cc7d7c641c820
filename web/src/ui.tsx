/** Shared pieces of every page: the data hook, API links, errors, disclaimers, copy buttons. Text only, never markup. */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type ApiError, getJson } from './api';

/** State of one GET: `data` once it answered, `error` when it failed. */
export type Loaded<T> = { data?: T; error?: ApiError; loading: boolean };

/** GETs `path` from the public API whenever it changes (null: nothing to load). */
export function useApi<T>(path: string | null): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ loading: path !== null });
  useEffect(() => {
    if (path === null) {
      setState({ loading: false });
      return;
    }
    let live = true;
    setState({ loading: true });
    getJson<T>(path).then(
      (data) => live && setState({ data, loading: false }),
      (error: ApiError) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [path]);
  return state;
}

/** "Data: GET /api/…" — the API call behind what the page shows. */
export function ApiLink({ path, label }: { path: string; label?: string }) {
  return (
    <p class="api-link">
      {label ?? 'Data'}:{' '}
      <a href={path} data-api={path}>
        GET {path}
      </a>
    </p>
  );
}

/** An error box; for 429/503 the message already says when to try again. */
export function ErrorBox({ error, what }: { error: ApiError | Error | string; what?: string }) {
  const text = typeof error === 'string' ? error : error.message;
  return (
    <div class="error" role="alert">
      {what ? `${what}: ` : ''}
      {text}
    </div>
  );
}

/** Loading, error or the content of one GET. */
export function Show<T>({ state, what, children }: { state: Loaded<T>; what: string; children: (data: T) => ComponentChildren }) {
  if (state.error) return <ErrorBox error={state.error} what={`Could not load ${what}`} />;
  if (state.loading || state.data === undefined)
    return (
      <p class="muted" aria-live="polite">
        Loading {what}…
      </p>
    );
  return <>{children(state.data)}</>;
}

/** The contract's reading rules where chain observations are shown. */
export function ChainDisclaimer() {
  return (
    <p class="disclaimer">
      Records are observations of finalized blocks, not a complete feed: a missing record is not zero activity. Unknown values are shown as
      "unknown", never 0. Wallets identify accounts, not verified bots. Nominal values count only listed USD tokens at 1 dollar per token
      and do not measure revenue; fees are separate.
    </p>
  );
}

/** The contract's reading rules where advertised offers are shown. */
export function OfferDisclaimer({ text }: { text?: string | null }) {
  return (
    <p class="disclaimer">
      {text ??
        'Advertised prices are offers, not charges. A listing or endpoint check does not establish a completed purchase. Domain control does not prove wallet control.'}
    </p>
  );
}

/** A button that copies `value` to the clipboard and says so. */
export function Copy({ value, label }: { value: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="copy"
      aria-label={`Copy ${label ?? value}`}
      onClick={() => {
        void navigator.clipboard?.writeText(value).then(() => {
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        });
      }}
    >
      {done ? 'copied' : 'copy'}
    </button>
  );
}

/** A hash or address in monospace with a copy button. */
export function Hex({ value, href }: { value: string | null | undefined; href?: string }) {
  if (!value) return <span class="unknown">unknown</span>;
  return (
    <span class="hex">
      {href ? <a href={href}>{value}</a> : <code>{value}</code>} <Copy value={value} />
    </span>
  );
}

/** A definition list from [label, value] pairs. */
export function Facts({ items }: { items: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {items.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Collapsed JSON, shown as text. */
export function Json({ value, summary }: { value: unknown; summary: string }) {
  return (
    <details class="json">
      <summary>{summary}</summary>
      <pre>{JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}

/**
 * A data table in a region that scrolls sideways and takes keyboard focus (narrow screens), named by `label`: the
 * column headings (`scope="col"`) from `columns`, the body rows from `children`.
 * @param className the table's class (`rows` for observation lists)
 */
export function DataTable({
  label,
  columns,
  className,
  children,
}: {
  label: string;
  columns: string[];
  className?: string;
  children: ComponentChildren;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways takes focus so the keyboard can scroll it (axe: scrollable-region-focusable)
    <section class="scroll" tabIndex={0} aria-label={label}>
      <table class={className}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </section>
  );
}

/** Sets the document title for a page. */
export function useTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · paywatch explorer`;
  }, [title]);
}

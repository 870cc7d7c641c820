/**
 * Gathers the evidence of one trust check (all the I/O of a check): one unpaid GET of the URL through the
 * safe fetcher, its challenge parsed, the service's listing and history from the intelligence store, the
 * service's recorded changes within the trust window, the assets resolved, the observed payments of each payTo
 * (live, and any a recent change moved to) from the chain store, and the ownership proofs of `/.well-known/x402`.
 * Never pays anything: no payment header is ever sent.
 */
import type { Store } from '../store/db.js';
import type { Offer, ProbeOutcome, RawResponse } from '../domain/intel.js';
import { parseChallenge } from '../intel/challenge/index.js';
import { boundOffer } from '../intel/read-bounds.js';
import { serviceId } from '../intel/service-id.js';
import { FetchError, FetchRefused, FetchTimeout, FetchTooLarge, safeFetch, vetUrl, type Resolver } from '../net/safe-fetch.js';
import { findServiceListing, lastKnownOffers, receivedPayments } from '../store/trust/index.js';
import { serviceChangesSince } from '../store/intel/index.js';
import { InvalidInput } from '../domain/errors.js';
import { TEMPO_MAINNET } from '../domain/tempo.js';
import type { AssetResolver } from './assets.js';
import { proofsOf, verifyOwnership } from './ownership.js';
import { analysePayers } from './payers.js';
import {
  TRUST_CHANGE_KINDS,
  type LiveFetch,
  type OwnershipEvidence,
  type PayerAnalysis,
  type PayToActivity,
  type RecentChange,
  type TrustEvidence,
} from './types.js';
import { changeSide } from '../intel/offer-identity.js';

/** Networks our chain store observes (the "payTo received observed payments" signal is only known there). */
const OBSERVED_NETWORKS: ReadonlySet<string> = new Set([TEMPO_MAINNET]);
/** Cap for /.well-known/x402 (a small JSON document). */
const WELL_KNOWN_MAX_BYTES = 64 * 1024;

export interface GatherOptions {
  store: Store;
  assets: AssetResolver;
  /** Total budget for fetching the URL and its well-known document, milliseconds. */
  timeoutMs: number;
  /** Body cap, bytes. */
  maxBytes: number;
  /** Tests and the local demo only. */
  allowLoopback: boolean;
  /** How far back recorded changes of the service count, days (PAYWATCH_TRUST_CHANGE_WINDOW_DAYS). */
  changeWindowDays: number;
  /** DNS resolver override (tests). */
  resolve?: Resolver;
  /** Check time; default now. */
  now?: Date;
}

/** Evidence plus the raw response it rests on (null when nothing was received). */
export interface Gathered {
  evidence: TrustEvidence;
  raw: RawResponse | null;
}

/**
 * Gathers everything assessTrust needs about `url`.
 * @param url absolute http(s) URL (validated by the route: ≤ 2,048 characters)
 * @throws InvalidInput when the URL itself is refused (private, loopback, link-local or metadata address, a
 *   name resolving to one, credentials, other scheme): nothing is fetched
 * @throws the store's error when the store cannot answer (mapped to 503 by the error handler)
 */
export async function gatherEvidence(url: string, o: GatherOptions): Promise<Gathered> {
  const now = o.now ?? new Date();
  const fetchOpts = { allowLoopback: o.allowLoopback, resolve: o.resolve };
  await refuseBadUrl(url, fetchOpts);
  // The well-known document and the store reads do not depend on the answer: run them beside the main fetch.
  const since = new Date(now.getTime() - o.changeWindowDays * 86_400_000).toISOString();
  const wellKnown = readWellKnown(url, { ...fetchOpts, timeoutMs: o.timeoutMs });
  const stored = readStored(o.store, serviceId('GET', url), since, now);
  const { raw, live } = await fetchLive(url, o, fetchOpts);
  const { offers, challengeErrors } = readChallenge(url, raw, live);
  const [listing, history, changes] = await stored;
  const markets = uniqueBy(offers, (x) => `${x.network}|${x.asset}`);
  const assets = await Promise.all(markets.map((x) => o.assets(x.network, x.asset)));
  const [payTos, payers] = await Promise.all([
    payToActivities(o.store, offers, changes),
    payerAnalyses(o.store, offers, now, listing?.service_id ?? null),
  ]);
  const ownership = await ownershipOf(url, offers, await wellKnown);
  const evidence: TrustEvidence = {
    url,
    live,
    offers,
    challenge_errors: challengeErrors,
    listing: listing && {
      provider_domain: listing.domain,
      service_id: listing.service_id,
      first_seen: listing.first_seen,
      last_checked: listing.last_checked_at,
      checks_total: listing.checks_total,
      checks_healthy: listing.checks_healthy,
      directory_sources: listing.sources,
    },
    history: history && { snapshot_id: history.snapshot_id, checked_at: history.checked_at, offers: history.offers },
    assets,
    pay_to_activity: payTos.live,
    payers,
    ownership,
    recent_changes: { window_days: o.changeWindowDays, since, changes, new_pay_to_activity: payTos.movedTo },
  };
  return { evidence, raw };
}

/** What the safe fetcher needs besides its budget. */
export type FetchOptions = { allowLoopback: boolean; resolve?: Resolver };

/**
 * Refuses a URL the safe fetcher would never fetch. A name that does not resolve is the target's failure, reported
 * as "unreachable" by the fetch itself. The listener calls it before asking for an x402 payment, so no client signs
 * for a check that cannot run.
 * @throws InvalidInput when the URL is refused
 */
export async function refuseBadUrl(url: string, fetchOpts: FetchOptions): Promise<void> {
  try {
    await vetUrl(url, fetchOpts);
  } catch (e) {
    if (e instanceof FetchRefused) throw new InvalidInput(`refused url: ${e.message}`);
  }
}

/** The service's listing, its last known offers and its recorded changes since `since`, read at once. */
function readStored(store: Store, sid: string, since: string, now: Date) {
  const stored = Promise.all([
    findServiceListing(store, sid),
    lastKnownOffers(store, sid, now.toISOString()),
    serviceChangesSince(store, sid, since, TRUST_CHANGE_KINDS),
  ]);
  stored.catch(() => undefined); // awaited by the caller; this only keeps an early rejection from being reported as unhandled
  return stored;
}

/** One unpaid GET of the URL: the response (also an oversized one's head) and the live outcome so far. */
async function fetchLive(url: string, o: GatherOptions, fetchOpts: FetchOptions): Promise<{ raw: RawResponse | null; live: LiveFetch }> {
  try {
    const raw = await safeFetch(url, {
      ...fetchOpts,
      timeoutMs: o.timeoutMs,
      maxBytes: o.maxBytes,
      maxRedirects: 3,
      headers: { accept: 'application/json' },
    });
    return { raw, live: { outcome: 'error', http_status: raw.status, error: null, final_url: raw.url, redirect_refused: false } };
  } catch (e) {
    return { raw: e instanceof FetchTooLarge ? e.response : null, live: failedFetch(e) };
  }
}

/**
 * The offers of a 402 answer, and the live outcome its status gives (set on `live`, whose outcome is still 'error'
 * with no error when an answer was received).
 */
function readChallenge(url: string, raw: RawResponse | null, live: LiveFetch): { offers: Offer[]; challengeErrors: string[] } {
  if (!raw || live.outcome !== 'error' || live.error !== null) return { offers: [], challengeErrors: [] };
  if (raw.status === 402) {
    const parsed = parseChallenge({ status: raw.status, headers: raw.headers, body: raw.body }, { resourceUrl: url });
    live.outcome = parsed.offers.length > 0 ? 'payment_required' : 'invalid_challenge';
    return { offers: parsed.offers.map(boundOffer), challengeErrors: parsed.errors };
  }
  if (raw.status >= 200 && raw.status < 300) live.outcome = 'ok_without_payment';
  else if (raw.status === 404 || raw.status === 410) live.outcome = 'not_found';
  else live.error = `HTTP ${raw.status}`;
  return { offers: [], challengeErrors: [] };
}

/** A payTo on a network, the key of its observed payments. */
type PayTo = { network: string | null; pay_to: string };
const payToKey = (x: PayTo) => `${x.network}|${x.pay_to}`;

/**
 * Observed payments of every payTo the live offers name and of every payTo a recent pay_to_changed record moved to,
 * each read once.
 */
async function payToActivities(
  store: Store,
  offers: Offer[],
  changes: RecentChange[],
): Promise<{ live: PayToActivity[]; movedTo: PayToActivity[] }> {
  const livePayTos = uniqueBy(
    offers.flatMap((x) => (x.pay_to ? [{ network: x.network, pay_to: x.pay_to }] : [])),
    payToKey,
  );
  const movedTo = uniqueBy(
    changes.flatMap((c) => {
      const after = c.kind === 'pay_to_changed' ? changeSide(c.after) : {};
      return typeof after.pay_to === 'string'
        ? [{ network: typeof after.network === 'string' ? after.network : null, pay_to: after.pay_to }]
        : [];
    }),
    payToKey,
  );
  const activity = new Map(
    await Promise.all(
      uniqueBy([...livePayTos, ...movedTo], payToKey).map(
        async (x) => [payToKey(x), await payToActivity(store, x.pay_to, x.network)] as const,
      ),
    ),
  );
  return { live: livePayTos.map((x) => activity.get(payToKey(x))!), movedTo: movedTo.map((x) => activity.get(payToKey(x))!) };
}

/**
 * Who pays each live payTo on a network we observe (./payers.ts), each analysed once; the listed service's own payer
 * figures are added when the service is listed.
 */
async function payerAnalyses(store: Store, offers: Offer[], now: Date, serviceId: string | null): Promise<PayerAnalysis[]> {
  const payTos = unique(offers.flatMap((x) => (x.pay_to && observesNetwork(x.network) ? [x.pay_to.toLowerCase()] : [])));
  return Promise.all(payTos.map((p) => analysePayers(store, p, { now, serviceId })));
}

/** True when our chain store observes `network` (payments there can be seen; elsewhere they are unknown). */
export function observesNetwork(network: string | null): boolean {
  return network !== null && OBSERVED_NETWORKS.has(network);
}

/** The ownership proofs of the URL's origin checked against the offers' payTo ("absent" when nothing is offered). */
async function ownershipOf(url: string, offers: Offer[], wk: { proofs: string[]; error: string | null }): Promise<OwnershipEvidence> {
  const origin = new URL(url).origin;
  if (offers.length === 0) return { status: 'absent', origin, proofs: 0, verified_pay_to: [], error: null };
  return verifyOwnership(
    origin,
    offers.map((x) => x.pay_to).filter((x): x is string => x !== null),
    wk.proofs,
    wk.error,
  );
}

/**
 * Observed payments received by `payTo` on `network`: count null (unknown, not zero) for a network our chain
 * store does not observe. Only transfers of tokens on the token list count (see the comment in the body).
 */
export async function payToActivity(store: Store, payTo: string, network: string | null): Promise<PayToActivity> {
  if (!observesNetwork(network)) return { pay_to: payTo, network, count: null, first_time_unix: null, last_time_unix: null };
  // Only payments in listed tokens count: anyone can pay a wallet in a token they minted themselves.
  return { pay_to: payTo, network, ...(await receivedPayments(store, payTo, store.tokenList.contracts())) };
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

function uniqueBy<T>(xs: T[], key: (x: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const x of xs) if (!seen.has(key(x))) seen.set(key(x), x);
  return [...seen.values()];
}

/** Maps a safe-fetch failure of the checked URL to a live-fetch outcome. */
function failedFetch(e: unknown): LiveFetch {
  const base = { http_status: null, final_url: null, redirect_refused: false };
  const msg = e instanceof FetchError ? e.message : 'could not fetch the URL';
  let outcome: ProbeOutcome = 'unreachable';
  if (e instanceof FetchRefused) return { ...base, outcome: 'refused', error: msg, redirect_refused: true };
  if (e instanceof FetchTimeout) outcome = 'timeout';
  else if (e instanceof FetchTooLarge)
    return { ...base, outcome: 'too_large', error: msg, http_status: e.response.status, final_url: e.response.url };
  return { ...base, outcome, error: msg };
}

/** Fetches `/.well-known/x402` of the URL's origin and reads its ownership proofs. Never throws. */
async function readWellKnown(
  url: string,
  opts: { allowLoopback: boolean; resolve?: Resolver; timeoutMs: number },
): Promise<{ proofs: string[]; error: string | null }> {
  try {
    const r = await safeFetch(`${new URL(url).origin}/.well-known/x402`, {
      ...opts,
      maxBytes: WELL_KNOWN_MAX_BYTES,
      maxRedirects: 0,
      headers: { accept: 'application/json' },
    });
    return { proofs: r.status === 200 ? proofsOf(JSON.parse(Buffer.from(r.body).toString('utf8'))) : [], error: null };
  } catch (e) {
    return { proofs: [], error: e instanceof FetchError ? e.message : 'well-known document is not JSON' };
  }
}

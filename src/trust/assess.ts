/**
 * The trust-check signal engine: a pure function from gathered evidence to a verdict with reasons.
 * Every rule here is documented in docs/trust-check.md (same codes, same thresholds). No I/O.
 *
 * Verdict rule: any critical reason → do_not_pay; else any warning → caution; else pay.
 */
import { toDecimal } from '../domain/money.js';
import { changeSide, offerIdentityKey } from '../intel/offer-identity.js';
import { groupBy } from '../domain/group-by.js';
import type { Offer } from '../domain/intel.js';
import { networkKind } from './networks.js';
import { POLICY_CODES, policyMisses, type PolicyMiss } from './policy.js';
import { payerReasons } from './payer-reasons.js';
import { TEMPO_NETWORKS } from '../domain/tempo.js';
import type {
  Add,
  AssetInfo,
  PayerAnalysis,
  Assessment,
  PayToActivity,
  PayToAssessment,
  PayToEvidence,
  PolicyOutcome,
  Reason,
  RecentChange,
  RecentChanges,
  Signals,
  TrustEvidence,
  Verdict,
} from './types.js';

/** A price this many times above or below history is treated as a decimal-versus-atomic mistake or worse. */
export const PRICE_ANOMALY_FACTOR = 1000n;
/** Dollars per call above which a price is flagged high (warning) and implausible (critical). */
export const PRICE_HIGH_DOLLARS = 100n;
export const PRICE_IMPLAUSIBLE_DOLLARS = 10_000n;
/** A listing younger than this is "new" (warning): seconds. */
export const NEW_LISTING_SECONDS = 7 * 24 * 3600;
/** Share of healthy checks below which the listing is flagged unhealthy. */
export const HEALTHY_SHARE_MIN = 0.8;
/** A recorded price rise of more than this percentage within the change window is flagged (price_raised_recently). */
export const PRICE_RAISE_PERCENT = 50n;

const INTEGER = /^\d+$/;

/**
 * Assesses a URL from its evidence.
 * @param ev evidence gathered by gatherEvidence (src/trust/gather.ts)
 * @param now the check time (for listing age), default now
 * @returns the verdict, the reasons (criticals first) and the signals used
 */
export function assessTrust(ev: TrustEvidence, now: Date = new Date()): Assessment {
  const reasons: Reason[] = [];
  const add: Add = (code, severity, message, evidence = {}) => reasons.push({ code, severity, message, evidence });

  liveReasons(ev, add);
  const https = ev.url.toLowerCase().startsWith('https:');
  if (https) add('https', 'info', 'the URL uses https', { url: ev.url });
  else add('not_https', 'warning', 'the URL uses plain http: the challenge and the answer can be altered in transit', { url: ev.url });

  listingReasons(ev, now, add);
  const recent = recentChangeReasons(ev, add);
  const history = historyReasons(ev, add, recent.flagged);
  const price = priceReasons(ev, add, recent.raised);
  assetReasons(ev, add);
  payToReasons(ev.pay_to_activity, add, weakPayTos(ev.payers ?? [], add));
  ownershipReasons(ev, add);
  const policy = policyReasons(ev, add);

  const networks = unique(ev.offers.map((o) => o.network)).map((network) => ({ network, kind: networkKind(network) }));
  networkReasons(networks, add);

  const verdict = verdictOf(reasons);

  const signals: Signals = {
    live_challenge: { outcome: ev.live.outcome, http_status: ev.live.http_status, offers: ev.offers.length },
    https,
    listing: {
      listed: ev.listing !== null,
      first_seen: ev.listing?.first_seen ?? null,
      checks_total: ev.listing?.checks_total ?? null,
      checks_healthy: ev.listing?.checks_healthy ?? null,
    },
    history,
    recent_changes: {
      window_days: ev.recent_changes?.window_days ?? null,
      since: ev.recent_changes?.since ?? null,
      change_ids: recent.changeIds,
    },
    price,
    assets: ev.assets,
    pay_to_activity: ev.pay_to_activity,
    ownership: ev.ownership.status,
    networks,
    directory: { listed: (ev.listing?.directory_sources.length ?? 0) > 0, sources: ev.listing?.directory_sources ?? [] },
    payers: ev.payers ?? [],
  };
  return { verdict, reasons, signals, policy };
}

/**
 * Assesses a payTo alone (POST /v1/check/pay-to) from chain and intel history: its observed inbound payments and
 * their age, the listed services advertising it, the recorded payTo changes that moved a service to it, its network.
 * Same verdict rule as assessTrust.
 * @param now the check time (for the age of the first payment)
 * @returns the verdict, the reasons (criticals first, sorted in place) and the signals used
 */
export function assessPayTo(ev: PayToEvidence, now: Date = new Date()): PayToAssessment {
  const reasons: Reason[] = [];
  const add: Add = (code, severity, message, evidence = {}) => reasons.push({ code, severity, message, evidence });
  const act = ev.activity;
  const payers = ev.payers ? [ev.payers] : [];
  payToReasons([act], add, weakPayTos(payers, add));
  if (act.first_time_unix !== null && now.getTime() - act.first_time_unix * 1000 < NEW_LISTING_SECONDS * 1000)
    add('pay_to_first_paid_recently', 'warning', `the first observed payment to ${ev.pay_to} is less than 7 days old`, {
      pay_to: ev.pay_to,
      first_time_unix: act.first_time_unix,
    });
  const services = ev.services.map((x) => ({
    service_id: x.service_id,
    url: x.url,
    first_advertised: x.first_advertised,
    last_advertised: x.last_advertised,
  }));
  if (ev.services_total > 0)
    add('pay_to_advertised', 'info', `${ev.services_total} listed service(s) advertise or advertised ${ev.pay_to}`, {
      services_total: ev.services_total,
      services,
    });
  else
    add('pay_to_not_advertised', 'warning', `no listed service advertises ${ev.pay_to}: nothing ties it to a service we know`, {
      services_total: 0,
    });
  const rc = ev.recent_changes;
  payToMoveReasons(rc, { window_days: rc.window_days, since: rc.since }, add);
  const networks = [{ network: ev.network, kind: networkKind(ev.network) }];
  networkReasons(networks, add);
  return {
    verdict: verdictOf(reasons),
    reasons,
    signals: {
      pay_to_activity: [act],
      services: { total: ev.services_total, listed: ev.services.length },
      recent_changes: { window_days: rc.window_days, since: rc.since, change_ids: rc.changes.map((c) => c.id) },
      networks,
      payers,
    },
  };
}

/** The payer reasons of every analysed payTo (./payer-reasons.ts). @returns the payTo (lower-case) whose payments are concentrated or self-funded */
function weakPayTos(analyses: PayerAnalysis[], add: Add): Set<string> {
  const weak = new Set<string>();
  for (const a of analyses) if (payerReasons(a, add).weak) weak.add(a.pay_to);
  return weak;
}

/** Sorts `reasons` critical, warning, info (in place) and gives the verdict: critical → do_not_pay, warning → caution, else pay. */
function verdictOf(reasons: Reason[]): Verdict {
  const order: Record<Reason['severity'], number> = { critical: 0, warning: 1, info: 2 };
  reasons.sort((a, b) => order[a.severity] - order[b.severity]);
  return reasons.some((r) => r.severity === 'critical') ? 'do_not_pay' : reasons.some((r) => r.severity === 'warning') ? 'caution' : 'pay';
}

/** Signal "network kind": one reason per network. */
function networkReasons(networks: Signals['networks'], add: Add): void {
  for (const n of networks) {
    if (n.kind === 'testnet')
      add('testnet', 'info', `network ${n.network} is a test network: its tokens carry no real value`, { network: n.network });
    else if (n.kind === 'mainnet') add('mainnet', 'info', `network ${n.network} is a main network`, { network: n.network });
    else add('network_unknown', 'warning', `network ${n.network ?? '(not stated)'} is not one we recognise`, { network: n.network });
  }
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

/** Signal "a live, parseable 402 challenge now". */
function liveReasons(ev: TrustEvidence, add: Add): void {
  const l = ev.live;
  const evidence = { http_status: l.http_status, final_url: l.final_url, error: l.error };
  if (l.redirect_refused) {
    add(
      'redirect_refused',
      'critical',
      'the URL redirects to a private, loopback or otherwise refused address; it was not followed',
      evidence,
    );
    return;
  }
  switch (l.outcome) {
    case 'payment_required':
      if (ev.offers.length > 0)
        add('payment_required_live', 'info', `the URL answers 402 now with ${ev.offers.length} parseable payment offer(s)`, evidence);
      else
        add('challenge_invalid', 'critical', 'the URL answers 402 but offers no usable payment option', {
          ...evidence,
          errors: ev.challenge_errors,
        });
      return;
    case 'invalid_challenge':
      add('challenge_invalid', 'critical', 'the URL answers 402 but its challenge cannot be parsed', {
        ...evidence,
        errors: ev.challenge_errors,
      });
      return;
    case 'ok_without_payment':
      add('no_payment_required', 'critical', 'the URL answered without asking for payment: there is nothing to pay', evidence);
      return;
    case 'not_found':
      add('not_found', 'critical', 'the URL answers not found', evidence);
      return;
    case 'timeout':
      add('unreachable', 'critical', 'the URL did not answer within the time budget', evidence);
      return;
    case 'unreachable':
    case 'refused':
      add('unreachable', 'critical', 'the URL could not be reached', evidence);
      return;
    case 'too_large':
      add('response_too_large', 'critical', 'the URL answered with a body over the size cap', evidence);
      return;
    default:
      add('http_error', 'critical', `the URL answered HTTP ${l.http_status ?? '?'} instead of a 402 challenge`, evidence);
  }
}

/** Signals "listed provider and service, first seen when, checks healthy" and "directory presence". */
function listingReasons(ev: TrustEvidence, now: Date, add: Add): void {
  const li = ev.listing;
  if (!li) {
    add('not_listed', 'warning', 'this service is not in our provider intelligence: no history to compare with', {});
    return;
  }
  add('listed', 'info', `listed under provider ${li.provider_domain}`, {
    provider_domain: li.provider_domain,
    service_id: li.service_id,
    first_seen: li.first_seen,
  });
  if (li.first_seen && now.getTime() - Date.parse(li.first_seen) < NEW_LISTING_SECONDS * 1000) {
    add('listed_recently', 'warning', 'first seen less than 7 days ago', { first_seen: li.first_seen });
  }
  if (li.checks_total !== null && li.checks_healthy !== null && li.checks_total > 0) {
    const share = li.checks_healthy / li.checks_total;
    if (share < HEALTHY_SHARE_MIN)
      add('checks_unhealthy', 'warning', `only ${li.checks_healthy} of ${li.checks_total} dated checks found a parseable 402`, {
        checks_total: li.checks_total,
        checks_healthy: li.checks_healthy,
      });
    else
      add('checks_healthy', 'info', `${li.checks_healthy} of ${li.checks_total} dated checks found a parseable 402`, {
        checks_total: li.checks_total,
        checks_healthy: li.checks_healthy,
      });
  }
  if (li.directory_sources.length > 0)
    add('directory_listed', 'info', `listed in ${li.directory_sources.join(', ')}`, { sources: li.directory_sources });
  else add('directory_absent', 'info', 'found by probing, not listed in any directory we read', {});
}

/** Offers comparable with a live one: same protocol, network and asset. */
function sameMarket(a: Offer, b: Offer): boolean {
  return a.protocol === b.protocol && a.network === b.network && (a.asset ?? '').toLowerCase() === (b.asset ?? '').toLowerCase();
}

/** Ratio live/history as an exact decimal string (6 fraction digits, truncated). */
function ratio(live: bigint, hist: bigint): string | null {
  if (hist === 0n) return null;
  return toDecimal((live * 1_000_000n) / hist, 6);
}

/**
 * Signal "payTo, asset, network and price consistent with history".
 * @param recentlyChanged true when a recent-change reason was given: history_consistent is then withheld
 */
function historyReasons(ev: TrustEvidence, add: Add, recentlyChanged: boolean): Signals['history'] {
  const hist = ev.history?.offers ?? [];
  const none: Signals['history'] = {
    compared: false,
    pay_to_consistent: null,
    asset_consistent: null,
    network_consistent: null,
    price_ratio: null,
  };
  if (hist.length === 0 || ev.offers.length === 0) return none;
  const histPayTo = new Set(hist.map((o) => o.pay_to).filter((x): x is string => x !== null));
  const histNetworks = new Set(hist.map((o) => o.network));
  let payToOk = true;
  let assetOk = true;
  let networkOk = true;
  let priceRatio: string | null = null;
  const evidence = { history_snapshot_id: ev.history?.snapshot_id ?? null, history_checked_at: ev.history?.checked_at ?? null };
  for (const o of ev.offers) {
    if (o.pay_to && histPayTo.size > 0 && !histPayTo.has(o.pay_to)) {
      payToOk = false;
      add(
        'pay_to_changed',
        'critical',
        `payTo ${o.pay_to} differs from the payTo seen before (${[...histPayTo].join(', ')}): money would go to a different wallet`,
        { ...evidence, pay_to: o.pay_to, previous_pay_to: [...histPayTo] },
      );
    }
    if (!histNetworks.has(o.network)) {
      networkOk = false;
      add('network_changed', 'warning', `network ${o.network ?? '(none)'} was not offered before`, {
        ...evidence,
        network: o.network,
        previous_networks: [...histNetworks],
      });
      continue;
    }
    const comparable = hist.filter((h) => sameMarket(h, o));
    if (comparable.length === 0) {
      assetOk = false;
      add('asset_changed', 'warning', `asset ${o.asset ?? '(none)'} on ${o.network} was not offered before`, {
        ...evidence,
        asset: o.asset,
        previous_assets: unique(hist.filter((h) => h.network === o.network).map((h) => h.asset)),
      });
      continue;
    }
    const h = comparable.find((c) => c.scheme === o.scheme) ?? comparable[0];
    if (o.amount_atomic && h.amount_atomic && INTEGER.test(o.amount_atomic) && INTEGER.test(h.amount_atomic)) {
      const live = BigInt(o.amount_atomic);
      const prev = BigInt(h.amount_atomic);
      priceRatio = ratio(live, prev);
      const ev2 = { ...evidence, amount_atomic: o.amount_atomic, previous_amount_atomic: h.amount_atomic, ratio: priceRatio };
      if (prev > 0n && (live >= prev * PRICE_ANOMALY_FACTOR || live * PRICE_ANOMALY_FACTOR <= prev)) {
        add(
          'price_anomaly',
          'critical',
          `price is ${priceRatio ?? '?'} times the price seen before: likely a decimal-versus-atomic mistake or a bait`,
          ev2,
        );
      } else if (live !== prev) {
        add('price_changed', 'warning', `price changed from ${h.amount_atomic} to ${o.amount_atomic} atomic units`, ev2);
      }
    }
  }
  if (payToOk && assetOk && networkOk && !recentlyChanged && !ev.offers.some((o) => o.pay_to === null)) {
    add('history_consistent', 'info', 'payTo, asset and network match what was seen before', { ...evidence, pay_to: [...histPayTo] });
  }
  return { compared: true, pay_to_consistent: payToOk, asset_consistent: assetOk, network_consistent: networkOk, price_ratio: priceRatio };
}

/** The members of a reason's evidence that cite its change records (fetchable from GET /api/intelligence/changes). */
function cites(cs: RecentChange[]): Record<string, unknown> {
  return {
    change_ids: cs.map((c) => c.id),
    snapshot_ids: unique(cs.flatMap((c) => [c.before_snapshot_id, c.after_snapshot_id]).filter((x): x is string => x !== null)),
    changed_at: cs[cs.length - 1].at,
  };
}

/**
 * Signal "recent recorded changes" (the service's change records within the window, src/intel/changes.ts):
 * pay_to_changed_recently per new payTo (critical when no payment to it was observed on chain, else warning),
 * price_raised_recently per offer identity whose amount rose by more than PRICE_RAISE_PERCENT over its lowest
 * earlier amount within the window, network_or_asset_changed_recently per network/asset change record.
 * @returns whether any was given, the identity keys with a raised price, and every change id weighed
 */
function recentChangeReasons(ev: TrustEvidence, add: Add): { flagged: boolean; raised: Set<string>; changeIds: number[] } {
  const rc = ev.recent_changes;
  if (!rc) return { flagged: false, raised: new Set(), changeIds: [] };
  const window = { window_days: rc.window_days, since: rc.since };
  const moved = payToMoveReasons(rc, window, add);
  const raised = priceRiseReasons(rc, window, add);
  const relocated = marketChangeReasons(rc, window, add);
  return { flagged: moved || raised.size > 0 || relocated, raised, changeIds: rc.changes.map((c) => c.id) };
}

/** The change window as every recent-change reason's evidence states it. */
type ChangeWindow = { window_days: number; since: string };

/** pay_to_changed_recently, once per new payTo (network and address). @returns whether any was given */
function payToMoveReasons(rc: RecentChanges, window: ChangeWindow, add: Add): boolean {
  const payToMoves = groupBy(
    rc.changes.filter((c) => c.kind === 'pay_to_changed'),
    (c) => JSON.stringify([changeSide(c.after).network ?? null, changeSide(c.after).pay_to ?? null]),
  );
  for (const cs of payToMoves.values()) {
    const { network = null, pay_to: payTo = null } = changeSide(cs[0].after);
    const act = rc.new_pay_to_activity.find((p) => p.pay_to === payTo && p.network === network);
    const inbound = {
      count: act?.count ?? null,
      first_time_unix: act?.first_time_unix ?? null,
      last_time_unix: act?.last_time_unix ?? null,
    };
    const evidence = {
      ...window,
      pay_to: payTo,
      previous_pay_to: unique(cs.map((c) => changeSide(c.before).pay_to ?? null)),
      network,
      inbound_payments: inbound,
      ...cites(cs),
    };
    const when = cs[cs.length - 1].at;
    if (inbound.count !== null && inbound.count > 0) {
      const seen = `the new wallet has received ${inbound.count} observed payment(s) on chain`;
      add('pay_to_changed_recently', 'warning', `payTo changed to ${payTo} on ${when}; ${seen}`, evidence);
    } else {
      const why =
        inbound.count === null
          ? `we do not observe ${network ?? 'its network'}, so no payment to it can be seen`
          : 'no payment to it has been observed on chain';
      const risk = 'a swapped payTo sends the money to a different wallet';
      add('pay_to_changed_recently', 'critical', `payTo changed to ${payTo ?? '(none)'} on ${when} and ${why}: ${risk}`, evidence);
    }
  }
  return payToMoves.size > 0;
}

/**
 * An offer identity as a reason's message names it, so two raised offers of one URL read apart, e.g.
 * "x402 v2 exact on eip155:4217 in 0x20c0…0000" or "mpp charge on eip155:4217 in 0x20c0…0000".
 */
function offerLabel(o: Partial<Offer>): string {
  const version = o.x402_version != null ? ` v${o.x402_version}` : '';
  const kind = o.scheme ?? o.method ?? null;
  return `${o.protocol ?? 'offer'}${version}${kind ? ` ${kind}` : ''} on ${o.network ?? 'an unknown network'} in ${o.asset ?? 'an unknown asset'}`;
}

/** One recorded price: atomic and decimal amounts, and the index of its change record in its group. */
type RecordedPrice = { atomic: string; amount: string | null; index: number };

/**
 * price_raised_recently, once per offer identity whose price rose. Only same-identity price records compare amounts
 * (a moved offer's amounts may be in another token).
 * @returns the identity keys (offerIdentityKey) with a raised price
 */
function priceRiseReasons(rc: RecentChanges, window: ChangeWindow, add: Add): Set<string> {
  const raised = new Set<string>();
  const priced = rc.changes.filter(
    (c) => c.kind === 'price_changed' && offerIdentityKey(changeSide(c.before)) === offerIdentityKey(changeSide(c.after)),
  );
  for (const [key, cs] of groupBy(priced, (c) => offerIdentityKey(changeSide(c.after)))) {
    const rise = latestRise(cs);
    if (!rise) continue;
    const o = changeSide(cs[rise.now.index].after);
    raised.add(key);
    add(
      'price_raised_recently',
      'warning',
      `${offerLabel(o)}: price rose from ${rise.old.atomic} to ${rise.now.atomic} atomic units (more than ${PRICE_RAISE_PERCENT}%) within ${rc.window_days} days`,
      {
        ...window,
        protocol: o.protocol ?? null,
        network: o.network ?? null,
        asset: o.asset ?? null,
        old_amount_atomic: rise.old.atomic,
        new_amount_atomic: rise.now.atomic,
        old_amount: rise.old.amount,
        new_amount: rise.now.amount,
        ratio: ratio(BigInt(rise.now.atomic), BigInt(rise.old.atomic)),
        ...cites(cs.slice(rise.old.index, rise.now.index + 1)),
      },
    );
  }
  return raised;
}

/**
 * The latest rise of more than PRICE_RAISE_PERCENT over the lowest earlier price, in one identity's price records
 * (oldest first); records whose amounts are not atomic integers are skipped. @returns null when none rose so much
 */
function latestRise(cs: RecentChange[]): { old: RecordedPrice; now: RecordedPrice } | null {
  let low: RecordedPrice | null = null;
  let rise: { old: RecordedPrice; now: RecordedPrice } | null = null;
  for (const [index, c] of cs.entries()) {
    const b = changeSide(c.before);
    const a = changeSide(c.after);
    if (!b.amount_atomic || !a.amount_atomic || !INTEGER.test(b.amount_atomic) || !INTEGER.test(a.amount_atomic)) continue;
    const before: RecordedPrice = { atomic: b.amount_atomic, amount: b.amount ?? null, index };
    const after: RecordedPrice = { atomic: a.amount_atomic, amount: a.amount ?? null, index };
    if (!low || BigInt(before.atomic) < BigInt(low.atomic)) low = before;
    if (BigInt(after.atomic) * 100n > BigInt(low.atomic) * (100n + PRICE_RAISE_PERCENT)) rise = { old: low, now: after };
    if (BigInt(after.atomic) < BigInt(low.atomic)) low = after;
  }
  return rise;
}

/** network_or_asset_changed_recently, once per network or asset change record. @returns whether any was given */
function marketChangeReasons(rc: RecentChanges, window: ChangeWindow, add: Add): boolean {
  const moves = rc.changes.filter((x) => x.kind === 'network_changed' || x.kind === 'asset_changed');
  for (const c of moves) {
    const b = changeSide(c.before);
    const a = changeSide(c.after);
    add(
      'network_or_asset_changed_recently',
      'warning',
      `an offer moved from ${b.asset ?? '(none)'} on ${b.network ?? '(none)'} to ${a.asset ?? '(none)'} on ${a.network ?? '(none)'} on ${c.at}`,
      {
        ...window,
        kind: c.kind,
        before: { network: b.network ?? null, asset: b.asset ?? null },
        after: { network: a.network ?? null, asset: a.asset ?? null },
        ...cites([c]),
      },
    );
  }
  return moves.length > 0;
}

function assetFor(ev: TrustEvidence, o: Offer): AssetInfo | undefined {
  return ev.assets.find((a) => a.network === o.network && (a.asset ?? '').toLowerCase() === (o.asset ?? '').toLowerCase());
}

/**
 * Signal "price sane for the asset (decimal-versus-atomic mistakes)".
 * @param raised identity keys (offerIdentityKey) of offers whose price rose recently: no price_sane for those
 */
function priceReasons(ev: TrustEvidence, add: Add, raised: ReadonlySet<string>): Signals['price'] {
  const out: Signals['price'] = [];
  for (const o of ev.offers) {
    const info = assetFor(ev, o);
    const decimals = info?.decimals ?? o.decimals ?? null;
    const atomic = o.amount_atomic;
    const evidence = { network: o.network, asset: o.asset, amount_atomic: atomic, decimals };
    if (atomic === null) {
      add('price_missing', 'warning', 'the offer states no amount', evidence);
      out.push({ network: o.network, asset: o.asset, amount_atomic: null, amount: null, dollars: null });
      continue;
    }
    if (!INTEGER.test(atomic)) {
      add(
        'amount_not_atomic',
        'critical',
        `amount ${JSON.stringify(atomic)} is not an integer of atomic units: a decimal amount in an atomic field`,
        evidence,
      );
      out.push({ network: o.network, asset: o.asset, amount_atomic: atomic, amount: null, dollars: null });
      continue;
    }
    const amount = decimals !== null ? toDecimal(atomic, decimals) : null;
    const usd = info?.currency === 'USD' && decimals !== null;
    const dollars = usd ? amount : null;
    out.push({ network: o.network, asset: o.asset, amount_atomic: atomic, amount, dollars });
    if (BigInt(atomic) === 0n) {
      add('price_zero', 'warning', 'the offer asks for zero', evidence);
    } else if (usd) {
      const scale = 10n ** BigInt(decimals);
      const a = BigInt(atomic);
      if (a > PRICE_IMPLAUSIBLE_DOLLARS * scale)
        add(
          'price_implausible',
          'critical',
          `price ${dollars} dollars per call is implausible for a machine payment: likely an atomic amount given in whole tokens`,
          { ...evidence, dollars },
        );
      else if (a > PRICE_HIGH_DOLLARS * scale)
        add('price_high', 'warning', `price ${dollars} dollars per call is high`, { ...evidence, dollars });
      else if (!raised.has(offerIdentityKey(o))) add('price_sane', 'info', `price ${dollars} dollars per call`, { ...evidence, dollars });
    }
  }
  return out;
}

/** Signal "asset is a known token on that network (Tempo: a TIP-20 whose currency is known)". */
function assetReasons(ev: TrustEvidence, add: Add): void {
  for (const o of ev.offers) {
    const info = assetFor(ev, o);
    const evidence = {
      network: o.network,
      asset: o.asset,
      symbol: info?.symbol ?? null,
      currency: info?.currency ?? null,
      source: info?.source ?? null,
    };
    if (info?.known)
      add('asset_known', 'info', `asset ${info.symbol ?? o.asset} (${info.currency ?? '?'}) is a known token on ${o.network}`, evidence);
    else if (o.network && TEMPO_NETWORKS.has(o.network))
      add('asset_unknown', 'warning', `asset ${o.asset ?? '(none)'} is not a TIP-20 token with a known currency on ${o.network}`, evidence);
    else add('asset_unknown', 'warning', `asset ${o.asset ?? '(none)'} is not a token we know on ${o.network ?? '(no network)'}`, evidence);
  }
}

/** Signal "payTo has received observed payments on chain". */
function payToReasons(activity: PayToActivity[], add: Add, weak: ReadonlySet<string>): void {
  for (const p of activity) {
    const evidence = {
      pay_to: p.pay_to,
      network: p.network,
      count: p.count,
      first_time_unix: p.first_time_unix,
      last_time_unix: p.last_time_unix,
    };
    if (p.count === null)
      add(
        'pay_to_activity_unknown',
        'info',
        `we do not observe ${p.network ?? 'that network'}: payments to ${p.pay_to} are unknown (not zero)`,
        evidence,
      );
    else if (p.count > 0) {
      // Payments one payer or the payTo's own wallets made show no independent use: said here, weighed by the payer reasons.
      const independent = !weak.has(p.pay_to.toLowerCase());
      const why = independent ? '' : ', mostly from one payer or from wallets it funded: not evidence of independent use';
      add('pay_to_observed_payments', 'info', `${p.pay_to} received ${p.count} observed payment(s) on chain${why}`, {
        ...evidence,
        independent_payers: independent,
      });
    } else
      add(
        'pay_to_no_observed_payments',
        'warning',
        `no observed payments to ${p.pay_to} in our chain observations (records are observations, not a complete feed)`,
        evidence,
      );
  }
}

/**
 * The caller's policy (./policy.ts): one reason per policy code naming every offer outside it, critical when no
 * offer is within the policy, info when another offer is (the caller can pay that one).
 * @returns which offers are within it; null when no policy was given
 */
function policyReasons(ev: TrustEvidence, add: Add): PolicyOutcome | null {
  const p = ev.policy;
  if (!p) return null;
  const within: number[] = [];
  const missed = new Map<PolicyMiss['code'], Record<string, unknown>[]>();
  for (const [index, o] of ev.offers.entries()) {
    const misses = policyMisses(o, assetFor(ev, o), p);
    if (misses.length === 0) within.push(index);
    for (const m of misses) {
      const named = { index, protocol: o.protocol, network: o.network, asset: o.asset, pay_to: o.pay_to, ...m.detail };
      missed.set(m.code, [...(missed.get(m.code) ?? []), named]);
    }
  }
  const satisfied = within.length > 0;
  const severity = satisfied ? 'info' : 'critical';
  const tail = satisfied ? `; offer(s) ${within.join(', ')} are within it` : ': no offer is within the policy';
  const what: Record<PolicyMiss['code'], string> = {
    protocol_not_allowed: 'use a protocol the policy does not allow',
    network_not_allowed: 'are on a network the policy does not allow',
    asset_not_allowed: 'ask for an asset the policy does not allow (or cannot price in dollars)',
    price_above_policy: "ask more than the policy's max_amount",
  };
  for (const code of POLICY_CODES) {
    const offers = missed.get(code);
    if (!offers) continue;
    const list = offers.map((x) =>
      code === 'price_above_policy'
        ? `${x.index} (${x.amount ?? 'an unreadable amount'} ${x.unit ?? ''} against ${p.max_amount})`
        : `${x.index} (${x.protocol}, ${x.asset ?? 'no asset'} on ${x.network ?? 'no network'})`,
    );
    add(code, severity, `offer(s) ${list.join(', ')} ${what[code]}${tail}`, { offers, policy: p });
  }
  return { satisfied, offers_within_policy: within };
}

/** Signal "ownership proof (EIP-191 signature of the origin by the payTo)". */
function ownershipReasons(ev: TrustEvidence, add: Add): void {
  const ow = ev.ownership;
  const evidence = { origin: ow.origin, proofs: ow.proofs, verified_pay_to: ow.verified_pay_to, error: ow.error };
  if (ow.status === 'valid')
    add(
      'ownership_proof_valid',
      'info',
      `the payTo signed the origin ${ow.origin} (EIP-191): the wallet claims this site; it does not prove the site controls the wallet's intent`,
      evidence,
    );
  else if (ow.status === 'invalid')
    add(
      'ownership_proof_invalid',
      'critical',
      `/.well-known/x402 publishes ownership proofs, but none is a signature of ${ow.origin} by the payTo`,
      evidence,
    );
  else add('ownership_proof_absent', 'info', 'no ownership proof published in /.well-known/x402', evidence);
}

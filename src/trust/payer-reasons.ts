/**
 * The payer reasons of a trust check (docs/trust-check.md, "Who pays"): from the payer analysis of a payTo
 * (./payers.ts), pay_to_self_funded, pay_to_payers_concentrated, pay_to_few_payers and pay_to_diverse_payers, each
 * naming its evidence (counts, addresses, transaction hashes). No I/O.
 */
import type { Add, PayerAnalysis } from './types.js';

/** Share of the nominal from one payer at or above which the payments are concentrated (with CONCENTRATED_MIN_PAYMENTS). */
export const CONCENTRATED_SHARE = 0.8;
export const CONCENTRATED_MIN_PAYMENTS = 5;
/** Share of the nominal from self-funded payers (and self-payments) at which pay_to_self_funded is a warning / critical. */
export const SELF_FUNDED_WARNING_SHARE = 0.5;
export const SELF_FUNDED_CRITICAL_SHARE = 0.8;
/** Fewer distinct payers than this are few (info). */
export const FEW_PAYERS = 5;
/** Diverse payers: at least this many, the top one below DIVERSE_TOP_SHARE of the nominal, not self-funded. */
export const DIVERSE_MIN_PAYERS = 10;
export const DIVERSE_TOP_SHARE = 0.5;

/** The window every payer reason's evidence states. */
function windowOf(a: PayerAnalysis) {
  return {
    pay_to: a.pay_to,
    since: a.since,
    until: a.until,
    covered_since: a.covered_since,
    covered_until: a.covered_until,
    complete: a.complete,
    payments: a.payments,
    nominal: a.nominal,
    distinct_payers: a.distinct_payers,
  };
}

const percent = (x: number) => `${Math.round(x * 1000) / 10}%`;

/**
 * Adds the payer reasons of one payTo.
 * @returns whether its payments are concentrated or self-funded (pay_to_observed_payments then shows no independent use)
 */
export function payerReasons(a: PayerAnalysis, add: Add): { weak: boolean } {
  const base = windowOf(a);
  const selfShare = a.self_funded_share;
  const selfFunded = selfShare !== null && selfShare >= SELF_FUNDED_WARNING_SHARE;
  if (selfFunded) {
    const evidence = {
      ...base,
      self_funded_share: selfShare,
      self_funded_payers: a.self_funded_payers,
      self_payments: a.self_payments,
      funder: a.funder,
      funding_links: a.funding_links.filter((l) => l.kind !== 'common_funder'),
      funding_links_total: a.funding_links_total,
      payers_examined: a.payers_examined,
      capped: a.capped,
      examined_share: a.examined_share,
    };
    const msg = `${percent(selfShare)} of the nominal paid to ${a.pay_to} comes from itself or from payers it (or its own funder) funded: its payments may be manufactured`;
    if (selfShare >= SELF_FUNDED_CRITICAL_SHARE) add('pay_to_self_funded', 'critical', msg, evidence);
    else add('pay_to_self_funded', 'warning', msg, evidence);
  }
  const top = a.top_payer_share;
  const concentrated = top !== null && top >= CONCENTRATED_SHARE && a.payments >= CONCENTRATED_MIN_PAYMENTS;
  if (concentrated)
    add(
      'pay_to_payers_concentrated',
      'warning',
      `${percent(top)} of the nominal paid to ${a.pay_to} comes from one payer, ${a.top_payer}`,
      {
        ...base,
        top_payer: a.top_payer,
        top_payer_share: top,
        top_payer_payments: a.top_payer_payments,
        top_payer_tx: a.top_payer_tx,
      },
    );
  if (a.distinct_payers < FEW_PAYERS)
    add('pay_to_few_payers', 'info', `${a.pay_to} was paid by ${a.distinct_payers} distinct payer(s) in the collected window`, {
      ...base,
      top_payer: a.top_payer,
      self_payments: a.self_payments,
    });
  else if (a.distinct_payers >= DIVERSE_MIN_PAYERS && top !== null && top < DIVERSE_TOP_SHARE && !selfFunded)
    add(
      'pay_to_diverse_payers',
      'info',
      `${a.pay_to} was paid by ${a.distinct_payers} distinct payers, the largest at ${percent(top)} of the nominal, not self-funded`,
      {
        ...base,
        top_payer: a.top_payer,
        top_payer_share: top,
        self_funded_share: selfShare,
        common_funder: a.common_funder,
        payers_examined: a.payers_examined,
        capped: a.capped,
        examined_share: a.examined_share,
      },
    );
  return { weak: selfFunded || concentrated };
}

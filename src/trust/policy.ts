/**
 * The caller's policy (POST /v1/check `policy`, docs/trust-check.md "Policy"): which live offers it accepts and why
 * the others are outside it. Pure; assess.ts turns the misses into reasons.
 *
 * Rule: an offer is within the policy when its protocol is in `protocols`, its network in `networks`, its asset in
 * `assets` (each when given) and, when `max_amount` is given, its amount is at most `max_amount`: dollars for a known
 * USD token (1 dollar per token), else the asset's display units, and then only when the asset is named in `assets`
 * (an amount in some other asset has no dollar value to compare).
 */
import type { Offer } from '../domain/intel.js';
import { parseDecimal, toDecimal } from '../domain/money.js';
import type { AssetInfo, CheckPolicy } from './types.js';

/** The policy reason codes, in the order assess.ts reports them. */
export const POLICY_CODES = ['protocol_not_allowed', 'network_not_allowed', 'asset_not_allowed', 'price_above_policy'] as const;
export type PolicyCode = (typeof POLICY_CODES)[number];

/** Why one offer is outside the policy: one code, and the facts it rests on. */
export interface PolicyMiss {
  code: PolicyCode;
  /** What was compared: the offer's value and the policy's. */
  detail: Record<string, unknown>;
}

const INTEGER = /^\d+$/;
const lower = (xs: readonly string[] | undefined) => (xs ? new Set(xs.map((x) => x.toLowerCase())) : null);

/**
 * The members of `p` that offer `o` misses (empty when it is within the policy).
 * @param info what we know of the offer's asset (decimals, currency), or undefined when nothing
 * @param p the caller's policy; its max_amount must be a decimal string (validated by the route's schema)
 */
export function policyMisses(o: Offer, info: AssetInfo | undefined, p: CheckPolicy): PolicyMiss[] {
  const misses: PolicyMiss[] = [];
  if (p.protocols && !p.protocols.includes(o.protocol))
    misses.push({ code: 'protocol_not_allowed', detail: { protocol: o.protocol, allowed: p.protocols } });
  const networks = lower(p.networks);
  if (networks && !networks.has((o.network ?? '').toLowerCase()))
    misses.push({ code: 'network_not_allowed', detail: { network: o.network, allowed: p.networks } });
  const assets = lower(p.assets);
  const assetNamed = assets?.has((o.asset ?? '').toLowerCase()) ?? false;
  if (assets && !assetNamed) misses.push({ code: 'asset_not_allowed', detail: { asset: o.asset, allowed: p.assets } });
  if (p.max_amount !== undefined) {
    const price = priceMiss(o, info, p.max_amount, assetNamed);
    // An asset already refused by `assets` needs no second reason for having no comparable price.
    if (price && !(price.code === 'asset_not_allowed' && assets)) misses.push(price);
  }
  return misses;
}

/** The max_amount comparison of one offer, or null when its amount is within it. */
function priceMiss(o: Offer, info: AssetInfo | undefined, max: string, assetNamed: boolean): PolicyMiss | null {
  const usd = info?.known === true && info.currency === 'USD';
  const decimals = info?.decimals ?? o.decimals ?? null;
  const base = { asset: o.asset, amount_atomic: o.amount_atomic, max_amount: max };
  if (!usd && !assetNamed)
    return {
      code: 'asset_not_allowed',
      detail: {
        ...base,
        why: 'max_amount is in dollars and the asset is not a known USD token; name it in policy.assets to compare in its units',
      },
    };
  const unit = usd ? 'USD' : o.asset;
  if (o.amount_atomic === null || !INTEGER.test(o.amount_atomic) || decimals === null)
    return { code: 'price_above_policy', detail: { ...base, unit, amount: null, why: 'the amount cannot be read in display units' } };
  const m = parseDecimal(max);
  // amount_atomic / 10^decimals ≤ m.n / 10^m.scale, exactly, without division.
  const within = BigInt(o.amount_atomic) * 10n ** BigInt(m.scale) <= m.n * 10n ** BigInt(decimals);
  if (within) return null;
  return { code: 'price_above_policy', detail: { ...base, unit, amount: toDecimal(o.amount_atomic, decimals) } };
}

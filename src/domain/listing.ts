/**
 * What depends on the token list, derived when an observation is read (docs/decisions.md, "Listed tokens"):
 * `nominal` (only listed USD tokens are dollars), `asset_listed`, the legs' `asset_listed`, and the forensics note
 * on a token whose symbol imitates a listed one. Pure: the stored observation and the list in, members out.
 */
import { addExact, formatExact, parseDecimal, type ExactDecimal } from './money.js';
import type { Leg, NominalPart } from './observation.js';
import type { TokenList } from './token-list.js';

/**
 * The nominal dollar value: the exact sum of the parts whose token contract is listed (each part is already in a
 * token whose `currency()` is "USD", at 1 dollar per token); null when no part is listed.
 * @example nominalOf([{ asset_contract: '0x20c0…0000', amount: '1.5' }], DEFAULT_TOKEN_LIST) // '1.5'
 */
export function nominalOf(parts: readonly NominalPart[] | null, list: TokenList): string | null {
  const x = nominalExact(parts, list);
  return x && formatExact(x);
}

/** nominalOf as an ExactDecimal, for aggregates that add it to several sums without re-parsing. */
export function nominalExact(parts: readonly NominalPart[] | null, list: TokenList): ExactDecimal | null {
  let sum: ExactDecimal | null = null;
  for (const p of parts ?? [])
    if (list.tokens.has(p.asset_contract)) sum = sum ? addExact(sum, parseDecimal(p.amount)) : parseDecimal(p.amount);
  return sum;
}

/** A leg as served: its stored members plus whether its token is listed. */
export type ServedLeg = Leg & { asset_listed: boolean };

/** The legs with `asset_listed` added (null stays null). */
export function servedLegs(legs: readonly Leg[] | null, list: TokenList): ServedLeg[] | null {
  return legs ? legs.map((g) => ({ ...g, asset_listed: list.tokens.has(g.asset_contract) })) : null;
}

/**
 * Forensics notes for tokens whose symbol imitates a listed token's (one per contract, in leg order):
 * `{kind: 'imitated_symbol', asset_contract, symbol, imitates: {asset_contract, symbol}, reason}`.
 */
export function imitationNotes(legs: readonly Leg[] | null, list: TokenList): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (const g of legs ?? []) {
    if (seen.has(g.asset_contract)) continue;
    seen.add(g.asset_contract);
    const listed = list.imitated(g.asset, g.asset_contract);
    if (listed)
      out.push({
        kind: 'imitated_symbol',
        asset_contract: g.asset_contract,
        symbol: g.asset,
        imitates: { asset_contract: listed.address, symbol: listed.symbol },
        reason: 'the token is not on the token list but its symbol resembles a listed token\u2019s: its amounts are not counted as dollars',
      });
  }
  return out;
}

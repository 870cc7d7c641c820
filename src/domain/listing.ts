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

/** A leg as served: its stored members with the token's symbol, plus whether its token is listed. */
export type ServedLeg = Leg & { asset: string | null; asset_listed: boolean };

/**
 * The legs as served (null stays null): each with `asset`, the symbol of its token (from the detail's `assets`,
 * stored once per token; a leg stored before `assets` keeps its own), right after `to` as legs always served it,
 * and `asset_listed`.
 * @param assets the detail's `assets` (symbol by lower-case contract), absent in older samples
 */
export function servedLegs(
  legs: readonly Leg[] | null,
  list: TokenList,
  assets?: Readonly<Record<string, string | null>> | null,
): ServedLeg[] | null {
  if (!legs) return null;
  return legs.map((g) => {
    const { from, to, asset, ...rest } = g;
    return {
      from,
      to,
      asset: asset !== undefined ? asset : (assets?.[g.asset_contract] ?? null),
      ...rest,
      asset_listed: list.tokens.has(g.asset_contract),
    };
  });
}

/**
 * Forensics notes for tokens whose symbol imitates a listed token's (one per contract, in leg order):
 * `{kind: 'imitated_symbol', asset_contract, symbol, imitates: {asset_contract, symbol}, reason}`.
 */
export function imitationNotes(legs: readonly ServedLeg[] | null, list: TokenList): Record<string, unknown>[] {
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

/**
 * Who paid, in which token, with which attribution: the primary leg, the transaction's payer, the symbol of each
 * token once, the MPP attribution memo, and the notes on refused token metadata (docs/decoding.md, "Payer",
 * "Attribution", "Token metadata").
 */
import type { AttributionMemo, Leg } from '../../domain/observation.js';
import type { TokenMap } from '../types.js';
import { decodeMppAttribution } from './attribution.js';

/**
 * The primary leg: the first leg the sender sent, else the first leg that settles an authorization (a
 * facilitator submits a payer's transfer and sends nothing itself), else the first leg; null without legs.
 */
export function primaryLeg(legs: readonly Leg[], sender: string | null): Leg | null {
  return legs.find((g) => g.from === sender) ?? legs.find((g) => g.settlement != null) ?? legs[0] ?? null;
}

/** The symbol of each token the legs move, by contract, in first-seen order (null when unknown or refused). */
export function assetsOf(legs: readonly Leg[], tokens: TokenMap): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const g of legs) if (!(g.asset_contract in out)) out[g.asset_contract] = tokens.get(g.asset_contract)?.symbol ?? null;
  return out;
}

/**
 * The MPP attribution memo of the transaction: the memo of its MPP-tagged leg with the largest atomic amount
 * (the first of equals); null when no leg carries one. Each leg's own memo stays on the leg.
 */
export function attributionOf(legs: readonly Leg[]): AttributionMemo | null {
  let best: { leg: Leg; amount: bigint; memo: NonNullable<ReturnType<typeof decodeMppAttribution>> } | null = null;
  for (const g of legs) {
    const memo = decodeMppAttribution(g.memo);
    if (!memo) continue;
    const amount = BigInt(g.amount_atomic);
    if (!best || amount > best.amount) best = { leg: g, amount, memo };
  }
  return best && { log_index: best.leg.log_index, ...best.memo };
}

/**
 * Forensics for the tokens whose metadata was refused or not answered (src/chain/decode/metadata.ts), one per
 * token and member, in the order of `contracts`: `{kind, asset_contract, member, reason, bytes, prefix}` where
 * kind is oversized_metadata, invalid_metadata, bidi_override or metadata_call_failed.
 * @param contracts token contracts (duplicates are reported once)
 */
export function tokenForensics(contracts: Iterable<string>, tokens: TokenMap): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (const c of contracts) {
    if (seen.has(c)) continue;
    seen.add(c);
    for (const i of tokens.get(c)?.issues ?? [])
      out.push({ kind: i.kind, asset_contract: c, member: i.member, reason: i.reason, bytes: i.bytes, prefix: i.prefix });
  }
  return out;
}

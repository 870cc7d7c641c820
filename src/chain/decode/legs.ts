/**
 * Legs: the TIP-20 value movements of a transaction (docs/decoding.md). Every Transfer log except the fee
 * transfer is one leg; a TransferWithMemo (emitted in addition to its Transfer) only adds its memo to the
 * matching leg; Mint and Burn show up as Transfers from / to the zero address and are not counted again. A leg
 * references its token by contract: the symbol is kept once per token (the detail's `assets`), not per leg.
 */
import * as VirtualAddress from 'ox/tempo/VirtualAddress';
import { toDecimal } from '../../domain/money.js';
import type { Leg } from '../../domain/observation.js';
import type { TokenMap } from '../types.js';
import { BLOCKED_SINK, ZERO_ADDRESS } from './constants.js';
import { isTransfer, type DecodedLog } from './logs.js';

export interface LegFacts {
  legs: Leg[];
  /** Token contracts whose decimals are unknown (their leg amounts are atomic integer strings). */
  unknownDecimals: string[];
  forensics: Record<string, unknown>[];
}

/**
 * Builds the legs of one receipt.
 * @param logs decoded logs in receipt order
 * @param tokens token metadata (decimals → `amount`)
 * @param feeLogIndex log_index of the fee Transfer, excluded; null when there is none
 */
export function legsOf(logs: DecodedLog[], tokens: TokenMap, feeLogIndex: number | null): LegFacts {
  const legs: Leg[] = [];
  const unknownDecimals = new Set<string>();
  const forensics: Record<string, unknown>[] = [];
  for (const l of logs) {
    if (!isTransfer(l) || l.log_index === feeLogIndex) continue;
    const a = l.args as { from: string; to: string; amount: bigint };
    const from = a.from.toLowerCase();
    const to = a.to.toLowerCase();
    const info = tokens.get(l.address);
    const decimals = info?.decimals ?? null;
    if (decimals === null) unknownDecimals.add(l.address);
    legs.push({
      from,
      to,
      asset_contract: l.address,
      amount: decimals === null ? a.amount.toString() : toDecimal(a.amount, decimals),
      amount_atomic: a.amount.toString(),
      log_index: l.log_index,
      memo: null,
      kind: from === ZERO_ADDRESS ? 'mint' : to === ZERO_ADDRESS ? 'burn' : 'transfer',
      // Whoever the transfer moved value from paid (an authorizer or Permit2 owner as much as a sender); a mint has no payer.
      payer: from === ZERO_ADDRESS ? null : from,
      settlement: null,
      x402_proxy: null,
    });
    if (to === BLOCKED_SINK)
      forensics.push({
        kind: 'redirected_transfer',
        log_index: l.log_index,
        to,
        reason: 'transfer blocked by receive policy, redirected to the guard',
      });
    for (const [role, addr] of [
      ['from', from],
      ['to', to],
    ] as const)
      if (addr !== ZERO_ADDRESS && VirtualAddress.isVirtual(addr))
        forensics.push({ kind: 'virtual_address', log_index: l.log_index, role, address: addr });
  }
  for (const l of logs) {
    if (l.abi !== 'tip20' || l.event !== 'TransferWithMemo') continue;
    const a = l.args as { from: string; to: string; amount: bigint; memo: string };
    // The matching leg: same token, parties and amount, no memo yet, nearest before the memo log.
    const match = legs
      .filter(
        (g) =>
          g.asset_contract === l.address &&
          g.from === a.from.toLowerCase() &&
          g.to === a.to.toLowerCase() &&
          g.amount_atomic === a.amount.toString() &&
          g.memo == null &&
          g.log_index < l.log_index,
      )
      .pop();
    if (match) match.memo = a.memo.toLowerCase();
    else forensics.push({ kind: 'memo_without_transfer', log_index: l.log_index, memo: a.memo.toLowerCase() });
  }
  return { legs, unknownDecimals: [...unknownDecimals], forensics };
}

/**
 * Settlements of signed payment authorizations, recognised by their events whatever the call path (a 0x76 batch
 * or a wrapping contract hides the transaction's `to`), and the pay_to rule that makes one an x402 payment.
 *
 * - EIP-3009 (`transferWithAuthorization` / `receiveWithAuthorization`): the token emits
 *   `AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)` (EIP-3009) and its `Transfer` from
 *   the authorizer. The leg is that Transfer, from the same token contract.
 * - Permit2 through x402's own proxies: `x402ExactPermit2Proxy` / `x402UptoPermit2Proxy` call Permit2, whose
 *   `transferFrom` makes the token emit `Transfer(owner → witness.to)`, then emit `Settled()` or
 *   `SettledWithPermit()` (no arguments). The leg is the nearest Transfer before that event since the previous
 *   proxy event of the transaction. Permit2 emits nothing for a signature transfer, so only the proxies show one.
 *
 * Addresses and events: ./x402.ts (@x402/evm 2.27.0).
 */
import type { Leg } from '../../domain/observation.js';
import { ZERO_ADDRESS } from './constants.js';
import type { DecodedLog } from './logs.js';
import { X402_PERMIT2_PROXIES, type X402ProxyVariant } from './x402.js';

/** How a leg was settled: an EIP-3009 authorization, or a Permit2 transfer through an x402 proxy. */
export type SettlementKind = 'eip3009' | 'permit2';

const PROXY_EVENTS = new Set(['Settled', 'SettledWithPermit']);
const VARIANT_BY_ADDRESS = new Map<string, X402ProxyVariant>(
  Object.entries(X402_PERMIT2_PROXIES).map(([v, a]) => [a, v as X402ProxyVariant]),
);

/**
 * Marks the legs that settle an authorization: sets `settlement` ("eip3009" | "permit2") and, for the proxies,
 * `x402_proxy` (the variant) on the matched legs, in place.
 * @param logs the receipt's decoded logs, in order
 * @param legs the legs built from them (./legs.ts), in log order
 * @returns forensics for a settlement event with no transfer to match (`settlement_without_transfer`)
 */
export function markSettlements(logs: readonly DecodedLog[], legs: Leg[]): Record<string, unknown>[] {
  const forensics: Record<string, unknown>[] = [];
  let windowStart = -1;
  for (const l of logs) {
    if (l.abi === 'eip3009' && l.event === 'AuthorizationUsed') {
      const authorizer = String(l.args!.authorizer).toLowerCase();
      const open = (g: Leg) => g.settlement == null && g.asset_contract === l.address && g.from === authorizer;
      // The token emits AuthorizationUsed, then its Transfer (USDC's FiatToken order); a token doing it the other way round is matched too.
      const leg = legs.find((g) => open(g) && g.log_index > l.log_index) ?? lastOf(legs, (g) => open(g) && g.log_index < l.log_index);
      if (leg) leg.settlement = 'eip3009';
      else forensics.push(unmatched(l, 'eip3009'));
    } else if (l.abi === 'x402Permit2Proxy' && l.event && PROXY_EVENTS.has(l.event) && VARIANT_BY_ADDRESS.has(l.address)) {
      const leg = lastOf(
        legs,
        (g) => g.settlement == null && g.from !== ZERO_ADDRESS && g.log_index < l.log_index && g.log_index > windowStart,
      );
      windowStart = l.log_index;
      if (leg) {
        leg.settlement = 'permit2';
        leg.x402_proxy = VARIANT_BY_ADDRESS.get(l.address)!;
      } else forensics.push(unmatched(l, 'permit2'));
    }
  }
  return forensics;
}

/** The last leg matching `f` (Array.prototype.findLast is ES2023). */
function lastOf(legs: Leg[], f: (g: Leg) => boolean): Leg | undefined {
  for (let i = legs.length - 1; i >= 0; i--) if (f(legs[i])) return legs[i];
  return undefined;
}

const unmatched = (l: DecodedLog, settlement: SettlementKind) => ({
  kind: 'settlement_without_transfer',
  log_index: l.log_index,
  address: l.address,
  settlement,
  reason: 'a settlement event with no token transfer to match it',
});

export { x402ProtocolOf } from '../../domain/x402-protocol.js';

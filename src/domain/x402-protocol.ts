/** The pay_to rule that makes a settled authorization an x402 payment (src/chain/decode/settlement.ts marks the legs). */
import type { Leg } from './observation.js';

/**
 * The pay_to rule for x402 on Tempo: chain activity alone does not establish a protocol, so a settled
 * authorization is an x402 payment only when it went through x402's own proxy, or when its recipient is a payTo
 * that an x402 offer on eip155:4217 named. Pure: the caller passes the payTos it has seen (for attribution at a
 * payment's time, the payTos seen at or before that time).
 * @param legs the observation's legs (stored or served; members `to`, `settlement`, `x402_proxy` are read)
 * @param payTos lower-case payTo addresses of x402 offers on eip155:4217
 * @returns "x402", or null
 * @example x402ProtocolOf([{ to: '0xab…', settlement: 'eip3009', … }], new Set(['0xab…'])) // 'x402'
 */
export function x402ProtocolOf(
  legs: readonly Pick<Leg, 'to' | 'settlement' | 'x402_proxy'>[] | null,
  payTos: ReadonlySet<string>,
): 'x402' | null {
  for (const g of legs ?? []) {
    if (g.x402_proxy) return 'x402';
    if (g.settlement && payTos.has(g.to.toLowerCase())) return 'x402';
  }
  return null;
}

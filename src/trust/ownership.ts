/**
 * Ownership proofs: `/.well-known/x402` may carry `ownershipProofs`, EIP-191 signatures of the origin string
 * (e.g. "https://api.example.com") by the payTo address (domain notes, "x402"). Verified with viem's
 * verifyMessage (EOA recovery). A valid proof shows the wallet claims the site; it does not show that the
 * site's operator controls the wallet's later use.
 */
import { verifyMessage } from 'viem';
import type { OwnershipEvidence } from './types.js';

const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;
const EVM_ADDRESS = /^0x[0-9a-f]{40}$/;

/** Reads the proofs out of a parsed well-known document: strings, or objects with a `signature` member. */
export function proofsOf(doc: unknown): string[] {
  if (!doc || typeof doc !== 'object') return [];
  const raw = (doc as Record<string, unknown>).ownershipProofs;
  if (!Array.isArray(raw)) return [];
  return raw
    .map((p) => (typeof p === 'string' ? p : p && typeof p === 'object' ? (p as Record<string, unknown>).signature : undefined))
    .filter((p): p is string => typeof p === 'string');
}

/**
 * Verifies the proofs against the offers' payTo addresses.
 * @param origin the checked URL's origin (scheme://host[:port]), the signed message
 * @param payTos lower-case payTo addresses of the live offers (non-EVM ones are ignored)
 * @param proofs signatures as published (0x + 130 hex)
 * @returns status 'valid' when every EVM payTo has a proof, 'invalid' when proofs are published but do not
 *   cover every payTo, 'absent' when none is published
 */
export async function verifyOwnership(
  origin: string,
  payTos: string[],
  proofs: string[],
  error: string | null = null,
): Promise<OwnershipEvidence> {
  const wanted = [...new Set(payTos.filter((p) => EVM_ADDRESS.test(p)))];
  if (proofs.length === 0) return { status: 'absent', origin, proofs: 0, verified_pay_to: [], error };
  const verified: string[] = [];
  for (const payTo of wanted) {
    for (const sig of proofs) {
      if (!SIGNATURE.test(sig)) continue;
      const ok = await verifyMessage({ address: payTo as `0x${string}`, message: origin, signature: sig as `0x${string}` }).catch(
        () => false,
      );
      if (ok) {
        verified.push(payTo);
        break;
      }
    }
  }
  const status = wanted.length > 0 && verified.length === wanted.length ? 'valid' : 'invalid';
  return { status, origin, proofs: proofs.length, verified_pay_to: verified, error };
}

/**
 * Ownership proofs: real EIP-191 signatures (viem accounts) of the origin by the payTo are valid; a signature by
 * another wallet or of another origin is invalid; no proofs is absent.
 */
import { describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_KEYS } from '../../src/chain/anvil.js';
import { proofsOf, verifyOwnership } from '../../src/trust/ownership.js';

const owner = privateKeyToAccount(ANVIL_KEYS[1]);
const other = privateKeyToAccount(ANVIL_KEYS[2]);
const ORIGIN = 'https://api.example.com';
const payTo = owner.address.toLowerCase();

describe('ownership proofs', () => {
  it('a signature of the origin by the payTo is valid (string or {signature} form)', async () => {
    const sig = await owner.signMessage({ message: ORIGIN });
    expect((await verifyOwnership(ORIGIN, [payTo], proofsOf({ ownershipProofs: [sig] }))).status).toBe('valid');
    const r = await verifyOwnership(ORIGIN, [payTo], proofsOf({ ownershipProofs: [{ signature: sig }] }));
    expect(r).toMatchObject({ status: 'valid', verified_pay_to: [payTo], proofs: 1 });
  });

  it('a signature by another wallet, of another origin, or a garbage proof is invalid', async () => {
    expect((await verifyOwnership(ORIGIN, [payTo], [await other.signMessage({ message: ORIGIN })])).status).toBe('invalid');
    expect((await verifyOwnership(ORIGIN, [payTo], [await owner.signMessage({ message: 'https://evil.example' })])).status).toBe('invalid');
    expect((await verifyOwnership(ORIGIN, [payTo], ['0x1234'])).status).toBe('invalid');
  });

  it('every payTo must be covered: one of two is invalid', async () => {
    const sig = await owner.signMessage({ message: ORIGIN });
    expect((await verifyOwnership(ORIGIN, [payTo, other.address.toLowerCase()], [sig])).status).toBe('invalid');
  });

  it('no document or no proofs is absent', async () => {
    expect((await verifyOwnership(ORIGIN, [payTo], proofsOf(null))).status).toBe('absent');
    expect((await verifyOwnership(ORIGIN, [payTo], proofsOf({ resources: [] }))).status).toBe('absent');
  });
});

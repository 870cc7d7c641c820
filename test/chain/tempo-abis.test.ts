/**
 * src/chain/tempo-abis.ts loads viem's Tempo ABIs and addresses by file; they must be the very modules `viem/tempo`
 * exports (a viem upgrade that moved them would fail here, not in decoding).
 */
import { describe, expect, it } from 'vitest';
import * as ViemTempo from 'viem/tempo';
import { Abis, Addresses } from '../../src/chain/tempo-abis.js';

describe('Tempo ABIs and addresses', () => {
  it('are the objects viem/tempo exports', () => {
    expect(Abis).toBe(ViemTempo.Abis);
    expect(Addresses).toBe(ViemTempo.Addresses);
    expect(Abis.tip20.length).toBeGreaterThan(10);
    expect(Addresses.feeManager.toLowerCase()).toBe('0xfeec000000000000000000000000000000000000');
  });
});

/**
 * The decoder over blocks and receipts recorded from a real anvil node in Tempo mode (test/fixtures/chain,
 * made by test/fixtures/record-chain.ts from generateActivity): every ground-truth field of every transaction.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeBlock, CATEGORIES } from '../../src/chain/decode/index.js';
import { evaluateBlockIntegrity } from '../../src/chain/integrity/index.js';
import type { Observation } from '../../src/domain/observation.js';
import { nominalOf } from '../../src/domain/listing.js';
import { localTokenList } from '../../src/demo/token-list.js';
import { loadChainFixtures } from '../fixtures/chain/load.js';

const fx = loadChainFixtures();
const LOCAL = localTokenList();
const FIELDS = [
  'hash',
  'height',
  'sender',
  'recipient',
  'asset',
  'asset_contract',
  'amount',
  'fee',
  'execution',
  'exchange',
  'protocol',
  'category',
] as const;

describe('decodeBlock over recorded anvil blocks', () => {
  const byHash = new Map<string, Observation>();
  beforeAll(async () => {
    for (const f of fx.blocks) {
      const decoded = decodeBlock(f, fx.tokens, await evaluateBlockIntegrity(f));
      for (const o of decoded.observations) byHash.set(o.hash, o);
    }
  });

  it('gives one observation per transaction, and the node holds no transaction the truth lacks', () => {
    const txCount = fx.blocks.reduce((n, f) => n + f.block.transactions.length, 0);
    expect(byHash.size).toBe(txCount);
    expect(new Set(byHash.keys())).toEqual(new Set(fx.truth.transactions.map((t) => t.hash)));
  });

  it.each(fx.truth.transactions.map((t) => [t.label, t] as const))('%s: every ground-truth field', (_label, t) => {
    const o = byHash.get(t.hash)!;
    for (const k of FIELDS) expect(o[k], k).toEqual(t[k]);
    expect(nominalOf(o.nominal_parts, LOCAL), 'nominal').toEqual(t.nominal);
    expect(o.detail.receipt!.fee_payer).toBe(t.fee_payer);
    expect(o.detail.receipt!.fee_token).toBe(t.fee_token);
    expect(o.chain_id).toBe(4217);
    expect(o.decode).toBe('full');
    expect(o.integrity.score).toBe(2);
  });

  it('covers every category the node can produce (all but system, which only a real chain has)', () => {
    const seen = new Set(fx.truth.transactions.map((t) => t.category));
    expect([...seen].sort()).toEqual(CATEGORIES.filter((c) => c !== 'system').sort());
  });

  it('sets tx_index, time and evidence from the block', () => {
    const same = fx.truth.transactions.filter((t) => t.label.startsWith('same-block'));
    expect(new Set(same.map((t) => t.height)).size).toBe(1);
    expect(same.map((t) => byHash.get(t.hash)!.tx_index)).toEqual([0, 1, 2]);
    const { block, index } = fx.find('plain transfer');
    const o = byHash.get(block.block.transactions[index].hash)!;
    expect(o.time).toBe(Number(block.block.timestamp));
    expect(o.detail.evidence).toMatchObject({
      block_hash: block.block.hash,
      tx_index: index,
      source: block.source,
      fetched_at: block.fetchedAt,
    });
  });
});

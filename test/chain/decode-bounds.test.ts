/**
 * The caps on what one transaction may store (src/chain/decode/limits.ts, bounds.ts), on recorded anvil
 * transactions altered to go beyond them (hundreds of Transfer logs, thousands of logs, 200 KB of calldata; the
 * real 600-log transaction is collected in ./hostile-metadata.test.ts), and the symbol stored once per token.
 */
import { describe, expect, it } from 'vitest';
import { numberToHex, pad, toHex } from 'viem';
import { decodeTransaction } from '../../src/chain/decode/index.js';
import { jsonBytes, mayExceedDetailCap } from '../../src/chain/decode/bounds.js';
import { CHAIN_DATA_LIMITS } from '../../src/chain/decode/limits.js';
import type { FetchedBlock, RpcLog, TokenMap } from '../../src/chain/types.js';
import { localTokenList } from '../../src/demo/token-list.js';
import type { Integrity } from '../../src/domain/observation.js';
import { rowToDetail, serializeObservation } from '../../src/store/chain/rows.js';
import { PaymentIntelIndex } from '../../src/store/payments/intel-index.js';
import { loadChainFixtures } from '../fixtures/chain/load.js';

const INTEGRITY: Integrity = { score: 0, maximum: 5, version: 'test', scope: 'test', stages: [] };
const LEGS_CAP = CHAIN_DATA_LIMITS.legs_per_transaction.value;
const LOGS_CAP = CHAIN_DATA_LIMITS.logs_per_transaction.value;
const DETAIL_CAP = CHAIN_DATA_LIMITS.detail_bytes.value;

/** The "plain transfer" fixture with its Transfer log repeated `n` times (the fee log stays last). */
function plainTransferWith(
  n: number,
  make?: (transfer: RpcLog, i: number) => RpcLog,
): { block: FetchedBlock; index: number; tokens: TokenMap } {
  const fx = loadChainFixtures();
  const { block, index } = fx.find('plain transfer');
  const receipt = block.receipts[index]!;
  const fee = receipt.logs[receipt.logs.length - 1];
  const transfer = receipt.logs[receipt.logs.length - 2];
  const logs = Array.from({ length: n }, (_, i) => (make ? make(transfer, i) : { ...transfer }));
  receipt.logs = [...logs, fee].map((l, i) => ({ ...l, logIndex: numberToHex(i) }));
  return { block, index, tokens: fx.tokens };
}

describe('legs per transaction', () => {
  it(`keeps ${LEGS_CAP} legs whole`, () => {
    const { block, index, tokens } = plainTransferWith(LEGS_CAP);
    const o = decodeTransaction(block, index, tokens, INTEGRITY);
    expect(o.detail.legs).toHaveLength(LEGS_CAP);
    expect(o.decode).toBe('full');
    expect(o.nominal_parts).toEqual([{ asset_contract: o.asset_contract, amount: String(1.5 * LEGS_CAP) }]);
  });

  it(`beyond ${LEGS_CAP}: hash, fee, execution, the primary leg's members; no legs, logs, calls or nominal; decode and forensics name the cap`, () => {
    const { block, index, tokens } = plainTransferWith(LEGS_CAP + 1);
    const whole = decodeTransaction(plainTransferWith(1).block, index, tokens, INTEGRITY);
    const o = decodeTransaction(block, index, tokens, INTEGRITY);
    expect(o).toMatchObject({
      hash: whole.hash,
      fee: whole.fee,
      execution: 'success',
      sender: whole.sender,
      recipient: whole.recipient,
      asset: 'AlphaUSD',
      asset_contract: whole.asset_contract,
      amount: '1.5',
      nominal_parts: null,
      category: 'transfer',
    });
    expect(o.decode).toBe(
      `partial: ${LEGS_CAP + 1} legs exceed the cap of ${LEGS_CAP} per transaction; legs, logs and calls not kept, nominal unknown`,
    );
    expect(o.detail).toMatchObject({
      legs: null,
      calls: null,
      unknown: null,
      assets: { [whole.asset_contract!]: 'AlphaUSD' },
      payer: whole.sender,
    });
    expect(o.detail.receipt).toMatchObject({ logs: null, fee_atomic: whole.detail.receipt!.fee_atomic, status: 'success' });
    expect(o.detail.forensics![0]).toEqual({
      kind: 'cap_exceeded',
      cap: 'legs_per_transaction',
      limit: LEGS_CAP,
      count: LEGS_CAP + 1,
      reason: 'legs, logs and calls not kept, nominal unknown',
    });
    expect(o.detail.transaction).toMatchObject({ hash: whole.hash, from: whole.sender });
    expect(o.detail.transaction).not.toHaveProperty('input');
    expect(jsonBytes(o.detail)).toBeLessThan(2048);
  });
});

describe('logs per transaction', () => {
  it(`beyond ${LOGS_CAP} logs: only the fee is read (the last log); no legs, venue or undecoded logs`, () => {
    const { block, index, tokens } = plainTransferWith(LOGS_CAP, (t, i) => ({
      ...t,
      address: pad(toHex(i + 1), { size: 20 }),
      topics: [pad(toHex(i))],
    }));
    const whole = decodeTransaction(plainTransferWith(1).block, index, tokens, INTEGRITY);
    const o = decodeTransaction(block, index, tokens, INTEGRITY);
    expect(o.fee).toBe(whole.fee);
    expect(o.detail.receipt).toMatchObject({ fee_log_atomic: whole.detail.receipt!.fee_log_atomic, logs: null });
    expect(o).toMatchObject({
      asset: null,
      asset_contract: null,
      amount: null,
      nominal_parts: null,
      exchange: null,
      recipient: whole.detail.calls![0].target,
    });
    expect(o.decode).toBe(`partial: ${LOGS_CAP + 1} logs exceed the cap of ${LOGS_CAP} per transaction; logs not decoded`);
    expect(o.detail.forensics![0]).toMatchObject({ kind: 'cap_exceeded', cap: 'logs_per_transaction', count: LOGS_CAP + 1 });
    expect(jsonBytes(o.detail)).toBeLessThan(2048);
  });
});

describe('bytes per detail', () => {
  const withInput = (bytes: number, receipt = true) => {
    const fx = loadChainFixtures();
    const { block, index } = fx.find('plain transfer');
    const tx = block.block.transactions[index];
    tx.input = `0xdeadbeef${'ab'.repeat(bytes)}`;
    if (!receipt) block.receipts[index] = null;
    return decodeTransaction(block, index, fx.tokens, INTEGRITY);
  };

  it(`a detail over ${DETAIL_CAP} bytes (200 KB of calldata) is stored reduced, with and without a receipt`, () => {
    for (const receipt of [true, false]) {
      const o = withInput(200_000, receipt);
      expect(o.decode).toMatch(/^partial: detail of \d+ bytes exceeds the cap of 262144; legs, logs and calls not kept, nominal unknown/);
      expect(o.detail.forensics![0]).toMatchObject({ kind: 'cap_exceeded', cap: 'detail_bytes', limit: DETAIL_CAP });
      expect(o.detail.transaction).not.toHaveProperty('input');
      expect(jsonBytes(o.detail)).toBeLessThan(2048);
    }
  });

  it('a detail under the cap (100 KB of calldata) is stored whole', () => {
    const o = withInput(100_000);
    expect(o.detail.transaction!.input).toHaveLength(2 + 8 + 200_000);
    expect(jsonBytes(o.detail)).toBeLessThan(DETAIL_CAP);
    expect(o.decode).not.toMatch(/cap/);
  });

  it('skips measuring only details that cannot reach the cap: 16 logs of data, 8 KB of escaped text in the transaction', () => {
    const { block, index, tokens } = plainTransferWith(15, (t) => ({ ...t, topics: [t.topics[0]], data: `0x${'ff'.repeat(200)}` }));
    const tx = block.block.transactions[index];
    // Control characters JSON-escape six-fold: the worst case for the bound.
    tx.note = '\u0001'.repeat(8192 - JSON.stringify(tx).length - 16);
    const o = decodeTransaction(block, index, tokens, INTEGRITY);
    expect(mayExceedDetailCap(tx, block.receipts[index]!.logs, { calls: 1, legs: 0 })).toBe(false);
    expect(jsonBytes(o.detail)).toBeLessThan(DETAIL_CAP);
  });
});

describe('the symbol, once per token', () => {
  it('is stored in the detail once per token, not in each leg, and served on every leg as before', () => {
    const fx = loadChainFixtures();
    const { block, index } = fx.find('0x76 batch across two tokens');
    const o = decodeTransaction(block, index, fx.tokens, INTEGRITY);
    const stored = serializeObservation(o);
    expect(stored.detail.split('"AlphaUSD"')).toHaveLength(2); // AlphaUSD moves in two legs, named once
    expect(o.detail.legs!.every((g) => !('asset' in g))).toBe(true);
    const served = rowToDetail({ ...stored.row, detail: stored.detail }, localTokenList(), new PaymentIntelIndex());
    expect(served.legs!.map((g) => Object.keys(g))).toEqual(
      served.legs!.map(() => [
        'from',
        'to',
        'asset',
        'asset_contract',
        'amount',
        'amount_atomic',
        'log_index',
        'memo',
        'kind',
        'payer',
        'settlement',
        'x402_proxy',
        'asset_listed',
        'attribution',
      ]),
    );
    expect(served.legs!.map((g) => [g.asset, g.amount])).toEqual([
      ['AlphaUSD', '3'],
      ['BetaUSD', '4'],
      ['AlphaUSD', '0.5'],
    ]);
  });

  it('a leg stored before (with its own asset) is served as it was stored', () => {
    const fx = loadChainFixtures();
    const { block, index } = fx.find('plain transfer');
    const o = decodeTransaction(block, index, fx.tokens, INTEGRITY);
    const { payer, settlement, x402_proxy, ...rest } = o.detail.legs![0];
    const old = {
      transaction: null,
      receipt: null,
      evidence: null,
      legs: [{ ...rest, asset: 'OldSymbol' }],
      calls: null,
      forensics: [],
      unknown: [],
    };
    const stored = serializeObservation(o);
    const served = rowToDetail({ ...stored.row, detail: JSON.stringify(old) }, localTokenList(), new PaymentIntelIndex());
    expect(served.legs![0]).toEqual({ ...old.legs[0], asset_listed: true, attribution: null });
    expect([payer, settlement, x402_proxy]).toEqual([o.sender, null, null]);
  });
});

describe('the decode note', () => {
  it('names at most three tokens whose decimals are unknown, and counts the rest', () => {
    const { block, index } = plainTransferWith(6, (t, i) => ({ ...t, address: pad(toHex(0xaa00 + i), { size: 20 }) }));
    const o = decodeTransaction(block, index, new Map(), INTEGRITY);
    const named = [0, 1, 2].map((i) => pad(toHex(0xaa00 + i), { size: 20 })).join(' ');
    expect(o.decode).toBe(`partial: atomic amounts, decimals unknown for ${named} and 3 more`);
  });
});

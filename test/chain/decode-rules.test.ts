/**
 * Focused decoding rules (docs/decoding.md) on recorded anvil blocks. Where a case cannot be produced on anvil
 * (a fee log that disagrees with the gas figures, a Uniswap pool, a system transaction, a missing receipt, an
 * undecodable log), the recorded block is altered in the test and the test says so.
 */
import { describe, expect, it } from 'vitest';
import { encodeAbiParameters, encodeEventTopics, numberToHex, pad } from 'viem';
import { decodeBlock, decodeTransaction, feeAtomic, isMppMemo, MPP_TAG, tokenAddressesOf } from '../../src/chain/decode/index.js';
import { uniswapV3 } from '../../src/chain/decode/abi.js';
import type { FetchedBlock, RpcLog, TokenMap } from '../../src/chain/types.js';
import type { Integrity, Observation } from '../../src/domain/observation.js';
import { nominalOf } from '../../src/domain/listing.js';
import { localTokenList } from '../../src/demo/token-list.js';
import { mppMemo } from '../../src/demo/activity.js';
import { loadChainFixtures } from '../fixtures/chain/load.js';

/** Placeholder integrity: these tests are about decoding, not integrity. */
const INTEGRITY: Integrity = { score: 0, maximum: 5, version: 'test', scope: 'test', stages: [] };
const decode = (f: FetchedBlock, i: number, tokens: TokenMap) => decodeTransaction(f, i, tokens, INTEGRITY);
/** The nominal value served under the local chain's token list (every genesis token listed). */
const LOCAL = localTokenList();
const nominal = (o: Observation) => nominalOf(o.nominal_parts, LOCAL);

describe('decoding rules', () => {
  it('counts a TransferWithMemo once: the memo joins its Transfer leg', () => {
    const fx = loadChainFixtures();
    const { block, index } = fx.find('MPP charge (transferWithMemo, MPP tag)');
    const o = decode(block, index, fx.tokens);
    const memoLogs = o.detail.receipt!.logs as { event: string }[];
    expect(memoLogs.filter((l) => l.event === 'TransferWithMemo')).toHaveLength(1);
    expect(o.detail.legs).toHaveLength(1);
    expect(o.detail.legs![0].memo).toMatch(new RegExp(`^${MPP_TAG}01`));
    expect(o.amount).toBe('0.01');
    expect(nominal(o)).toBe('0.01');
  });

  it('puts each memo on its own leg in a 0x76 batch, and sums only the sender legs into nominal', () => {
    const fx = loadChainFixtures();
    const { block, index } = fx.find('0x76 batch across two tokens');
    const o = decode(block, index, fx.tokens);
    expect(o.detail.legs!.map((g) => [o.detail.assets![g.asset_contract], g.amount, g.memo !== null])).toEqual([
      ['AlphaUSD', '3', false],
      ['BetaUSD', '4', true],
      ['AlphaUSD', '0.5', false],
    ]);
    expect(nominal(o)).toBe('7.5');
    expect(o.detail.calls!.map((c) => c.function)).toEqual(['transfer', 'transferWithMemo', 'transfer']);
    expect(o.detail.calls![0]).toMatchObject({ selector: '0xa9059cbb', target: '0x20c0000000000000000000000000000000000001' });
  });

  it('excludes the fee Transfer from legs, amount and nominal, and cross-checks it against the gas figures', () => {
    const fx = loadChainFixtures();
    const { block, index } = fx.find('plain transfer');
    const o = decode(block, index, fx.tokens);
    const receipt = block.receipts[index]!;
    const feeLog = receipt.logs[receipt.logs.length - 1];
    expect(feeLog.topics[2]).toBe(pad('0xfeec000000000000000000000000000000000000'));
    expect(o.detail.legs!.map((g) => g.log_index)).not.toContain(Number(feeLog.logIndex));
    expect(o.amount).toBe('1.5');
    expect(nominal(o)).toBe('1.5');
    const atomic = feeAtomic(BigInt(receipt.gasUsed), BigInt(receipt.effectiveGasPrice));
    expect(BigInt(feeLog.data)).toBe(atomic);
    expect(o.fee).not.toBeNull();
    expect(o.detail.receipt!.fee_atomic).toBe(atomic.toString());
    expect(o.detail.forensics).toEqual([]);
  });

  it('reports a fee log that disagrees with the gas figures in forensics (log altered: anvil never does this)', () => {
    const fx = loadChainFixtures();
    const { block, index } = fx.find('plain transfer');
    const logs = block.receipts[index]!.logs;
    const feeLog = logs[logs.length - 1];
    const logged = BigInt(feeLog.data) + 7n;
    feeLog.data = numberToHex(logged, { size: 32 });
    const o = decode(block, index, fx.tokens);
    expect(o.detail.forensics).toContainEqual(expect.objectContaining({ kind: 'fee_mismatch', logged_atomic: logged.toString() }));
    expect(o.fee).toBe(fx.find('plain transfer').expected.fee); // the computed figure stays the fee
  });

  it('keeps the fee, fee token and fee payer of a reverted transaction, with no legs', () => {
    const fx = loadChainFixtures();
    const { block, index, expected } = fx.find('reverted transfer');
    const o = decode(block, index, fx.tokens);
    expect(o.execution).toBe('failed');
    expect(o.detail.legs).toEqual([]);
    expect([o.amount, nominal(o), o.asset]).toEqual([null, null, null]);
    expect(o.fee).toBe(expected.fee);
    expect(Number(o.fee)).toBeGreaterThan(0);
    expect(o.detail.receipt!.fee_payer).toBe(expected.sender);
  });

  it('names the real fee payer of a sponsored transaction from the fee log', () => {
    const fx = loadChainFixtures();
    const { block, index, expected } = fx.find('fee-sponsored transfer');
    const o = decode(block, index, fx.tokens);
    expect(o.sender).toBe(expected.sender);
    expect(o.detail.receipt!.fee_payer).toBe(expected.fee_payer);
    expect(expected.fee_payer).not.toBe(expected.sender);
  });

  it('gives no nominal value to a non-USD token, but keeps its amount', () => {
    const fx = loadChainFixtures();
    const { block, index } = fx.find('EUR token transfer');
    const o = decode(block, index, fx.tokens);
    expect(o.asset).toBe('PWEUR');
    expect(o.amount).toBe('12.34');
    expect(nominal(o)).toBeNull();
  });

  it("keeps atomic amounts and says so in decode when a token's decimals are unknown", () => {
    const fx = loadChainFixtures();
    const { block, index, expected } = fx.find('EUR token transfer');
    const tokens = new Map(fx.tokens);
    tokens.set(expected.asset_contract!, { address: expected.asset_contract!, symbol: null, currency: null, decimals: null });
    const o = decode(block, index, tokens);
    expect(o.amount).toBe('12340000');
    expect(o.detail.legs![0].amount_atomic).toBe('12340000');
    expect(o.asset).toBeNull();
    expect(o.decode).toMatch(/^partial: atomic amounts, decimals unknown for 0x20c0/);
  });

  it('does not value a USD token whose decimals are unknown (nominal null, not a guess)', () => {
    const fx = loadChainFixtures();
    const { block, index } = fx.find('plain transfer');
    const tokens = new Map(fx.tokens);
    tokens.set('0x20c0000000000000000000000000000000000001', {
      address: '0x20c0000000000000000000000000000000000001',
      symbol: 'AlphaUSD',
      currency: 'USD',
      decimals: null,
    });
    expect(nominal(decode(block, index, tokens))).toBeNull();
  });

  it('uses the mint leg from the zero address and the burn leg to it', () => {
    const fx = loadChainFixtures();
    const mint = fx.find('mint EUR token');
    const m = decode(mint.block, mint.index, fx.tokens);
    expect(m.detail.legs!.map((g) => [g.kind, g.from])).toEqual([['mint', '0x0000000000000000000000000000000000000000']]);
    const burn = fx.find('burn EUR token');
    const b = decode(burn.block, burn.index, fx.tokens);
    expect(b.detail.legs!.map((g) => [g.kind, g.to])).toEqual([['burn', '0x0000000000000000000000000000000000000000']]);
  });

  it('identifies the Stablecoin DEX swap by its call and OrderFilled log, with the sent leg as primary', () => {
    const fx = loadChainFixtures();
    const { block, index } = fx.find('DEX swapExactAmountIn (approve + swap batch)');
    const o = decode(block, index, fx.tokens);
    expect(o.exchange).toBe('Tempo Stablecoin DEX');
    expect(o.detail.calls!.map((c) => c.function)).toEqual(['approve', 'swapExactAmountIn']);
    expect((o.detail.receipt!.logs as { event: string }[]).some((l) => l.event === 'OrderFilled')).toBe(true);
    expect(o.detail.legs!.length).toBeGreaterThanOrEqual(2);
    expect(nominal(o)).toBe('10'); // what the sender sent, not what it received
  });

  it('does not call an order placement a trade', () => {
    const fx = loadChainFixtures();
    const { block, index } = fx.find('DEX place (approve + place batch)');
    const o = decode(block, index, fx.tokens);
    expect(o.exchange).toBeNull();
    expect(o.category).toBe('liquidity');
  });

  it('names a Uniswap v3 pool by its Swap event (log added: no Uniswap pool on anvil)', () => {
    const fx = loadChainFixtures();
    const { block, index } = fx.find('plain transfer');
    const logs = block.receipts[index]!.logs;
    const swap: RpcLog = {
      ...logs[0],
      address: '0x1111111111111111111111111111111111111111',
      topics: encodeEventTopics({
        abi: uniswapV3,
        eventName: 'Swap',
        args: { sender: '0x2222222222222222222222222222222222222222', recipient: '0x3333333333333333333333333333333333333333' },
      }) as `0x${string}`[],
      data: encodeAbiParameters(
        [{ type: 'int256' }, { type: 'int256' }, { type: 'uint160' }, { type: 'uint128' }, { type: 'int24' }],
        [1n, -1n, 2n ** 96n, 10n, 0],
      ),
      logIndex: '0x9',
    };
    logs.splice(1, 0, swap);
    const o = decode(block, index, fx.tokens);
    expect(o.exchange).toBe('Uniswap v3');
    expect(o.category).toBe('swap');
  });

  it('keeps a log no known ABI decodes in `unknown` and marks decode partial (log added)', () => {
    const fx = loadChainFixtures();
    const { block, index } = fx.find('plain transfer');
    const logs = block.receipts[index]!.logs;
    logs.splice(1, 0, { ...logs[0], topics: [pad('0x1234')], data: '0x', logIndex: '0x8' });
    const o = decode(block, index, fx.tokens);
    expect(o.detail.unknown).toEqual([expect.objectContaining({ log_index: 8, topics: [pad('0x1234')] })]);
    expect(o.decode).toBe('partial: 1 undecoded log(s)');
    expect(o.amount).toBe('1.5');
  });

  it('gives execution unknown and decode none without a receipt (receipt removed)', () => {
    const fx = loadChainFixtures();
    const { block, index, expected } = fx.find('plain transfer');
    block.receipts[index] = null;
    const o = decode(block, index, fx.tokens);
    expect([o.execution, o.fee, o.amount, nominal(o), o.detail.legs]).toEqual(['unknown', null, null, null, null]);
    expect(o.decode).toBe('none: no receipt');
    expect(o.recipient).toBe(expected.asset_contract); // the call's target: nothing else is known
  });

  it('calls a zero-signature legacy transaction from the zero address a fee-free system transaction (altered tx)', () => {
    const fx = loadChainFixtures();
    const { block, index } = fx.find('plain transfer');
    const tx = block.block.transactions[index];
    Object.assign(tx, {
      type: '0x0',
      from: '0x0000000000000000000000000000000000000000',
      r: '0x0',
      s: '0x0',
      to: '0x20c0000000000000000000000000000000000001',
      input: '0x',
    });
    delete tx.calls;
    const receipt = block.receipts[index]!;
    receipt.logs = receipt.logs.slice(0, 0);
    receipt.effectiveGasPrice = '0x0';
    const o = decode(block, index, fx.tokens);
    expect(o.category).toBe('system');
    expect(o.fee).toBeNull();
  });

  it('recognises the MPP tag only with version 0x01', () => {
    expect(isMppMemo(mppMemo('s', 'c', 'x'))).toBe(true);
    expect(isMppMemo(`${MPP_TAG}02${'00'.repeat(27)}`)).toBe(false);
    expect(isMppMemo(pad('0x01'))).toBe(false);
    expect(isMppMemo(null)).toBe(false);
  });

  it('tokenAddressesOf lists each Transfer emitter once, lower-case, and no other emitters', () => {
    const fx = loadChainFixtures();
    const all = new Set(fx.blocks.flatMap(tokenAddressesOf));
    expect([...all].sort()).toEqual([...fx.tokens.keys()].sort());
    const swap = fx.find('DEX swapExactAmountIn (approve + swap batch)');
    const list = tokenAddressesOf(swap.block);
    expect(list).not.toContain('0xdec0000000000000000000000000000000000000');
    expect(new Set(list).size).toBe(list.length);
  });

  it('decodeBlock takes integrity by transaction index, and marks a missing one unknown (score 0)', () => {
    const fx = loadChainFixtures();
    const { block } = fx.find('same-block transfer 1 of 3');
    const given = { ...INTEGRITY, score: 2, version: 'given' };
    const out = decodeBlock(block, fx.tokens, [given]);
    expect(out.observations.map((o) => o.tx_index)).toEqual([0, 1, 2]);
    expect(out.observations[0].integrity).toBe(given);
    expect(out.observations[1].integrity.score).toBe(0);
    expect(out.observations[1].integrity.stages.every((s) => s.status === 'unknown')).toBe(true);
  });

  it('writes the node transaction with numbers as base-10 strings (nonceKey of an expiring nonce is 2^256 − 1)', () => {
    const fx = loadChainFixtures();
    const { block, index } = fx.find('fee-sponsored transfer');
    const t = decode(block, index, fx.tokens).detail.transaction!;
    expect(t.nonceKey).toBe((2n ** 256n - 1n).toString());
    expect(t.gas).toBe('3000000');
    expect(t.chainId).toBe('4217');
    expect(t.type).toBe('0x76');
    expect((t.calls as { value: string }[])[0].value).toBe('0');
  });

  it('keeps a call no ABI decodes with its selector and marks decode partial (calldata altered)', () => {
    const fx = loadChainFixtures();
    const { block, index } = fx.find('plain transfer');
    const call = (block.block.transactions[index].calls as { input: string }[])[0];
    call.input = `0xdeadbeef${call.input.slice(10)}`;
    const o = decode(block, index, fx.tokens);
    expect(o.detail.calls![0]).toMatchObject({ selector: '0xdeadbeef', function: null, args: null });
    expect(o.decode).toBe('partial: 1 undecoded call(s)');
    expect(o.category).toBe('transfer'); // the legs still say what happened
  });
});

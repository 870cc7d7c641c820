/**
 * Settlements of signed authorizations (src/chain/decode/settlement.ts), whatever the call path: a real x402
 * `exact` payment on anvil (@x402/fetch client, @x402/hono resource server, the demo's local facilitator settling
 * with EIP-3009 on the demo's EIP-3009 token), and a 0x76 batch of two authorizations and a plain transfer sent
 * by a facilitator account. x402's Permit2 proxies are not deployed on anvil (nor is Permit2), so their cases
 * alter the recorded x402 receipt: the AuthorizationUsed log is replaced by the proxy's `Settled()` event, in the
 * order the proxy emits it (the token's Transfer, then the event).
 */
import * as x402evm from '@x402/evm';
import { readFileSync } from 'node:fs';
import { encodeEventTopics, encodeFunctionData, numberToHex, parseAbi, toEventSelector, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { decodeTransaction, x402ProtocolOf, X402_EVM_VERSION, X402_PERMIT2_PROXIES } from '../../src/chain/decode/index.js';
import { EVENTS_BY_TOPIC } from '../../src/chain/decode/abi.js';
import { x402ProxyEvents } from '../../src/chain/decode/x402.js';
import type { RpcLog, TokenMap } from '../../src/chain/types.js';
import { deployPaymentToken, type PaymentToken } from '../../src/demo/payment-token.js';
import type { Integrity } from '../../src/domain/observation.js';
import { blockOf, decodeLive, finalize, payX402, walletOn } from './live-payments.js';

const INTEGRITY: Integrity = { score: 0, maximum: 5, version: 'test', scope: 'test', stages: [] };
const PAY_TO = '0x00000000000000000000000000000000000b0b00';
const payer = privateKeyToAccount(ANVIL_KEYS[2]);
const payer2 = privateKeyToAccount(ANVIL_KEYS[4]);
const facilitator = privateKeyToAccount(ANVIL_KEYS[1]);

describe('the x402 list follows the installed @x402/evm', () => {
  it('has its version, proxy addresses and settlement events', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../node_modules/@x402/evm/package.json', import.meta.url), 'utf8'));
    expect(X402_EVM_VERSION).toBe(pkg.version);
    expect(X402_PERMIT2_PROXIES).toEqual({
      exact: x402evm.x402ExactPermit2ProxyAddress.toLowerCase(),
      upto: x402evm.x402UptoPermit2ProxyAddress.toLowerCase(),
    });
    const selectors = (abi: readonly { type: string }[]) => abi.filter((i) => i.type === 'event').map((e) => toEventSelector(e as never));
    const ours = selectors(x402ProxyEvents);
    expect(selectors(x402evm.x402ExactPermit2ProxyABI)).toEqual(ours);
    expect(selectors(x402evm.x402UptoPermit2ProxyABI)).toEqual(ours);
    // No other known ABI claims these events' topics first.
    for (const t of ours) expect(EVENTS_BY_TOPIC.get(t)![0].source).toBe('x402Permit2Proxy');
  });
});

describe('settlements on anvil', () => {
  let node: AnvilNode;
  let token: PaymentToken;
  let x402Hash: Hash;
  let batchHash: Hash;

  beforeAll(async () => {
    node = await startAnvil();
    token = await deployPaymentToken(node.rpcUrl, ANVIL_KEYS[0], {
      name: 'Test USD',
      symbol: 'TUSD',
      holders: [payer.address, payer2.address],
      amount: 1_000_000n,
    });
    x402Hash = await payX402(node.rpcUrl, {
      token: token.address,
      tokenName: 'Test USD',
      payTo: PAY_TO,
      price: '10000',
      payerKey: ANVIL_KEYS[2],
      facilitatorKey: ANVIL_KEYS[1],
    });
    batchHash = await batchOfAuthorizations(node.rpcUrl, token);
    await finalize(node.rpcUrl);
  }, 120_000);
  afterAll(async () => node?.stop());

  it('an x402 payment settled with EIP-3009: the payer is the authorizer, the sender the facilitator, and no protocol by itself', async () => {
    const o = await decodeLive(node.rpcUrl, x402Hash);
    expect(o).toMatchObject({
      sender: facilitator.address.toLowerCase(),
      recipient: PAY_TO,
      asset_contract: token.address.toLowerCase(),
      amount: '0.01',
      protocol: null,
      execution: 'success',
    });
    expect(o.detail.legs).toEqual([
      expect.objectContaining({
        from: payer.address.toLowerCase(),
        to: PAY_TO,
        payer: payer.address.toLowerCase(),
        settlement: 'eip3009',
        x402_proxy: null,
      }),
    ]);
    expect(o.detail).toMatchObject({ payer: payer.address.toLowerCase(), settlement: 'eip3009', attribution: null });
    expect((o.detail.receipt!.logs as { event: string }[]).map((l) => l.event)).toEqual(['AuthorizationUsed', 'Transfer', 'Transfer']);
    expect(x402ProtocolOf(o.detail.legs, new Set([PAY_TO]))).toBe('x402');
    expect(x402ProtocolOf(o.detail.legs, new Set(['0x00000000000000000000000000000000000c0c00']))).toBeNull();
  });

  it("counts the payer's settled leg in the nominal parts, which a plain transfer by someone else never is", async () => {
    const { block, index } = await blockOf(node.rpcUrl, x402Hash);
    const usd: TokenMap = new Map([
      [token.address.toLowerCase(), { address: token.address.toLowerCase(), symbol: 'TUSD', currency: 'USD', decimals: 6 }],
    ]);
    // The decoder's token metadata given directly as a USD token (the chain's answer is not under test here).
    expect(decodeTransaction(block, index, usd, INTEGRITY).nominal_parts).toEqual([
      { asset_contract: token.address.toLowerCase(), amount: '0.01' },
    ]);
    const logs = block.receipts[index]!.logs;
    block.receipts[index]!.logs = logs.filter((l) => l.topics[0] !== AUTHORIZATION_USED);
    const plain = decodeTransaction(block, index, usd, INTEGRITY);
    expect(plain.detail.legs![0].settlement).toBeNull();
    expect(plain.nominal_parts).toBeNull();
  });

  it('a 0x76 batch of two authorizations and a plain transfer: each authorization leg settled with its own payer', async () => {
    const o = await decodeLive(node.rpcUrl, batchHash);
    expect(o.detail.transaction!.to ?? null).toBeNull();
    expect(o.detail.legs!.map((g) => [g.payer, g.settlement, g.amount_atomic])).toEqual([
      [payer.address.toLowerCase(), 'eip3009', '1000'],
      [facilitator.address.toLowerCase(), null, '1'],
      [payer2.address.toLowerCase(), 'eip3009', '2000'],
    ]);
    // The sender sent a leg of its own: it is the primary leg, and the transaction's payer.
    expect(o.detail.payer).toBe(facilitator.address.toLowerCase());
    expect(o.detail.settlement).toBe('eip3009');
    expect(o.detail.forensics).toEqual([]);
  });

  it('an AuthorizationUsed from another contract than the transfer settles nothing, and says so', async () => {
    const { block, index } = await blockOf(node.rpcUrl, x402Hash);
    const used = block.receipts[index]!.logs.find((l) => l.topics[0] === AUTHORIZATION_USED)!;
    used.address = '0x00000000000000000000000000000000000f00d0';
    const o = decodeTransaction(block, index, new Map(), INTEGRITY);
    expect(o.detail.legs![0].settlement).toBeNull();
    expect(o.detail.forensics).toContainEqual(expect.objectContaining({ kind: 'settlement_without_transfer', settlement: 'eip3009' }));
  });

  describe("x402's Permit2 proxies (receipt altered: the proxies are not deployed on anvil)", () => {
    /** The x402 payment's block, its AuthorizationUsed log replaced by `events` placed after the token Transfer. */
    const withProxyEvents = async (
      events: { address: string; name: 'Settled' | 'SettledWithPermit'; after: number }[],
      extraTransfer = false,
    ) => {
      const { block, index } = await blockOf(node.rpcUrl, x402Hash);
      const receipt = block.receipts[index]!;
      const [, transfer, fee] = receipt.logs;
      const out: RpcLog[] = [transfer];
      if (extraTransfer) out.push({ ...transfer, topics: [transfer.topics[0], pad(payer2.address), pad(PAY_TO)] });
      for (const e of events) out.splice(e.after + 1, 0, proxyLog(e.address, e.name));
      out.push(fee);
      receipt.logs = out.map((l, i) => ({ ...l, logIndex: numberToHex(i) }));
      return decodeTransaction(block, index, new Map(), INTEGRITY);
    };

    it('Settled() from the exact proxy: the preceding transfer is a permit2 settlement, through x402 itself, so protocol x402', async () => {
      const o = await withProxyEvents([{ address: X402_PERMIT2_PROXIES.exact, name: 'Settled', after: 0 }]);
      expect(o.detail.legs![0]).toMatchObject({ payer: payer.address.toLowerCase(), settlement: 'permit2', x402_proxy: 'exact' });
      expect(o.protocol).toBe('x402');
      expect(o.detail.settlement).toBe('permit2');
      // The proxy's event is a known event, not an undecoded log.
      expect((o.detail.receipt!.logs as { event: string }[]).map((l) => l.event)).toEqual(['Transfer', 'Settled', 'Transfer']);
      expect(o.decode).not.toMatch(/undecoded log/);
    });

    it('two settlements in one batch each take their own transfer (exact, then upto with a permit)', async () => {
      const o = await withProxyEvents(
        [
          { address: X402_PERMIT2_PROXIES.exact, name: 'Settled', after: 0 },
          { address: X402_PERMIT2_PROXIES.upto, name: 'SettledWithPermit', after: 2 },
        ],
        true,
      );
      expect(o.detail.legs!.map((g) => [g.payer, g.settlement, g.x402_proxy])).toEqual([
        [payer.address.toLowerCase(), 'permit2', 'exact'],
        [payer2.address.toLowerCase(), 'permit2', 'upto'],
      ]);
    });

    it('a proxy event never takes a transfer from before the previous proxy event of the transaction', async () => {
      const o = await withProxyEvents(
        [
          { address: X402_PERMIT2_PROXIES.exact, name: 'Settled', after: 1 },
          { address: X402_PERMIT2_PROXIES.upto, name: 'Settled', after: 2 },
        ],
        true,
      );
      expect(o.detail.legs!.map((g) => [g.payer, g.settlement, g.x402_proxy])).toEqual([
        [payer.address.toLowerCase(), null, null],
        [payer2.address.toLowerCase(), 'permit2', 'exact'],
      ]);
      expect(o.detail.forensics).toContainEqual(
        expect.objectContaining({ kind: 'settlement_without_transfer', address: X402_PERMIT2_PROXIES.upto }),
      );
    });

    it('the same event from any other contract settles nothing; a proxy event with no transfer before it is a forensics note', async () => {
      const other = await withProxyEvents([{ address: '0x4020000000000000000000000000000000000001', name: 'Settled', after: 0 }]);
      expect(other.detail.legs![0]).toMatchObject({ settlement: null, x402_proxy: null });
      expect(other.protocol).toBeNull();
      const early = await withProxyEvents([{ address: X402_PERMIT2_PROXIES.exact, name: 'Settled', after: -1 }]);
      expect(early.detail.legs![0].settlement).toBeNull();
      expect(early.detail.forensics).toContainEqual(
        expect.objectContaining({ kind: 'settlement_without_transfer', settlement: 'permit2' }),
      );
    });
  });
});

describe('x402ProtocolOf, the pay_to rule', () => {
  const leg = (to: string, settlement: 'eip3009' | 'permit2' | null, x402_proxy: 'exact' | 'upto' | null = null) => ({
    to,
    settlement,
    x402_proxy,
  });
  it.each([
    ['an EIP-3009 settlement to a payTo of an x402 offer', 'x402', [leg(PAY_TO, 'eip3009')]],
    ['an EIP-3009 settlement to an address no offer names', null, [leg('0x00000000000000000000000000000000000c0c00', 'eip3009')]],
    ['a plain transfer to a payTo (no settlement)', null, [leg(PAY_TO, null)]],
    [
      'a Permit2 settlement through the x402 proxy, whoever is paid',
      'x402',
      [leg('0x00000000000000000000000000000000000c0c00', 'permit2', 'exact')],
    ],
    ['a payTo in upper case on the leg', 'x402', [leg(PAY_TO.toUpperCase().replace('0X', '0x'), 'eip3009')]],
    ['no legs (older samples: null)', null, null],
  ] as const)('%s → %s', (_, want, legs) => {
    expect(x402ProtocolOf(legs as never, new Set([PAY_TO]))).toBe(want);
  });
});

const AUTHORIZATION_USED = toEventSelector('AuthorizationUsed(address,bytes32)');
const pad = (a: string) => `0x${a.slice(2).toLowerCase().padStart(64, '0')}` as `0x${string}`;

/** A log of an x402 proxy event (no arguments: topic0 only). */
function proxyLog(address: string, name: 'Settled' | 'SettledWithPermit'): RpcLog {
  return {
    address: address as `0x${string}`,
    topics: encodeEventTopics({ abi: x402ProxyEvents, eventName: name }) as `0x${string}`[],
    data: '0x',
    logIndex: '0x0',
  };
}

const EIP3009 = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
]);
const AUTH_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/**
 * A facilitator's 0x76 batch: payer's and payer2's signed EIP-3009 authorizations (1000 and 2000 atomic units to
 * PAY_TO) around a plain AlphaUSD transfer of its own, so `to` is hidden behind `calls`.
 */
async function batchOfAuthorizations(rpcUrl: string, token: PaymentToken): Promise<Hash> {
  const call = async (from: typeof payer, value: bigint, nonce: `0x${string}`) => {
    const message = { from: from.address, to: PAY_TO as `0x${string}`, value, validAfter: 0n, validBefore: 2n ** 48n, nonce };
    const signature = await from.signTypedData({
      domain: { name: token.name, version: token.version, chainId: 4217, verifyingContract: token.address },
      types: AUTH_TYPES,
      primaryType: 'TransferWithAuthorization',
      message,
    });
    const data = encodeFunctionData({
      abi: EIP3009,
      functionName: 'transferWithAuthorization',
      args: [message.from, message.to, value, message.validAfter, message.validBefore, nonce, signature],
    });
    return { to: token.address, data };
  };
  const alphaTransfer = {
    to: '0x20c0000000000000000000000000000000000001' as const,
    data: encodeFunctionData({
      abi: parseAbi(['function transfer(address to, uint256 amount)']),
      functionName: 'transfer',
      args: [PAY_TO, 1n],
    }),
  };
  const c = walletOn(rpcUrl, ANVIL_KEYS[1]);
  const hash = await c.sendTransaction({
    gas: 1_000_000n,
    calls: [await call(payer, 1000n, `0x${'01'.repeat(32)}`), alphaTransfer, await call(payer2, 2000n, `0x${'02'.repeat(32)}`)],
  } as never);
  const r = await c.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  if (r.status !== 'success') throw new Error(`the batch of authorizations reverted (${hash})`);
  return hash;
}

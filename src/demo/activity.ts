/**
 * Real activity for the demo and the tests: drives varied transactions into a local anvil node in Tempo mode
 * (docs/decoding.md) with viem's Tempo actions, and returns what the decoder must make of each (the ground
 * truth). Also `generateLoad`, which fills thousands of blocks quickly for the ingest benchmark.
 */
import { DemoError } from './errors.js';
import {
  concat,
  createClient,
  formatUnits,
  http,
  keccak256,
  pad,
  parseEventLogs,
  publicActions,
  slice,
  stringToHex,
  parseUnits,
  walletActions,
  type Hash,
  type Log,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { tempo } from 'viem/chains';
import { Abis, Actions, Addresses } from 'viem/tempo';
import { ANVIL_KEYS } from '../chain/anvil.js';
import { VENUES } from '../chain/decode/constants.js';
import type { Observation } from '../domain/observation.js';

/** Observation members the ground truth states for every generated transaction. */
type TruthMembers = 'hash' | 'height' | 'recipient' | 'asset' | 'asset_contract' | 'amount' | 'fee' | 'execution' | 'exchange' | 'protocol';

/**
 * What the decoder must produce for one generated transaction (the public Transaction members it sets);
 * `nominal` as served under the local token list (src/demo/token-list.ts), where every genesis token is listed.
 */
export type ExpectedObservation = Pick<Observation, TruthMembers> & {
  nominal: string | null;
  /** What the step did, for test names ("plain transfer", "0x76 batch"…). */
  label: string;
  sender: string;
  category: string;
  /** Lower-case fee payer (differs from sender when sponsored). */
  fee_payer: string;
  /** Lower-case fee token. */
  fee_token: string;
};

/** The expected members a step states; the rest (hash, height, fee, defaults) are filled in when recorded. */
type Expect = Omit<ExpectedObservation, 'label' | 'hash' | 'height' | 'fee' | 'execution' | 'fee_payer' | 'fee_token'> &
  Partial<Pick<ExpectedObservation, 'execution' | 'fee_payer' | 'fee_token'>>;

/** The ground truth of one generateActivity run. */
export interface GroundTruth {
  /** Every transaction the generator sent, in chain order (the node holds no others). */
  transactions: ExpectedObservation[];
  /** Height of the last block holding a generated transaction. */
  lastTxHeight: number;
  /** Latest height when the generator returned (finalized = latest − 2 ≥ lastTxHeight). */
  latestHeight: number;
  /** Whether the node accepted a fee-sponsored (fee payer ≠ sender) transaction. */
  sponsoredAccepted: boolean;
  /** The non-USD TIP-20 created through the factory. */
  eurToken: { address: string; symbol: string; currency: string };
}

const lc = (a: string) => a.toLowerCase();
const TOKENS = {
  pathUsd: lc(Addresses.pathUsd) as `0x${string}`,
  alpha: '0x20c0000000000000000000000000000000000001',
  beta: '0x20c0000000000000000000000000000000000002',
} as const;
/** Symbols anvil's genesis gives the pre-deployed tokens; the truth states them, the decoder reads them from the chain. */
const SYMBOLS: Record<string, string> = { [TOKENS.pathUsd]: 'PathUSD', [TOKENS.alpha]: 'AlphaUSD', [TOKENS.beta]: 'BetaUSD' };
const ZERO = '0x0000000000000000000000000000000000000000';
/** Gas for every generated transaction: viem's estimate can be too low for 0x76 batches (domain notes). */
const GAS = 3_000_000n;

/**
 * An MPP attribution memo (bytes32): keccak256("mpp")[0..3] ‖ 0x01 ‖ keccak256(serverId)[0..9] ‖
 * keccak256(clientId)[0..9] ‖ keccak256(challengeId)[0..6]. Layout of mppx 0.11.0 `tempo/Attribution`
 * (not exported by the package, so built here from viem primitives).
 */
export function mppMemo(serverId: string, clientId: string, challengeId: string): `0x${string}` {
  const k = (s: string) => keccak256(stringToHex(s));
  return concat([slice(k('mpp'), 0, 4), '0x01', slice(k(serverId), 0, 10), slice(k(clientId), 0, 10), slice(k(challengeId), 0, 7)]);
}

/** 6-decimal (TIP-20) atomic units from a decimal string ("1.5" → 1500000n). */
const units = (s: string) => parseUnits(s, 6);

/**
 * Drives the demo's activity (README, `paywatch demo`) into a fresh anvil node in Tempo mode and returns the ground truth.
 * Uses anvil's dev accounts (ANVIL_KEYS), which genesis funds with every pre-deployed token. Ends by mining two
 * empty blocks so the finalized head (latest − 2) covers the last generated transaction.
 * @param rpcUrl the node's JSON-RPC URL (a fresh node: the truth assumes no other transactions)
 * @throws Error when a step that must succeed reverts, or the node does not answer
 */
export async function generateActivity(rpcUrl: string): Promise<GroundTruth> {
  const accounts = ANVIL_KEYS.map((k) => privateKeyToAccount(k));
  const [a0, a1, a2, a3, a4] = accounts;
  const wallet = (account: PrivateKeyAccount, feeToken: `0x${string}` = TOKENS.alpha) =>
    createClient({ account, chain: tempo.extend({ feeToken }), transport: http(rpcUrl), pollingInterval: 20 })
      .extend(publicActions)
      .extend(walletActions);
  const c0 = wallet(a0);
  const c1 = wallet(a1);
  const c1beta = wallet(a1, TOKENS.beta);
  const c2 = wallet(a2);
  const truth: ExpectedObservation[] = [];

  /** Waits for the receipt, checks the expected status and records the expected observation. */
  const record = async (label: string, hash: Hash, expect: Expect): Promise<{ logs: Log[] }> => {
    const r = await c0.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    const execution = expect.execution ?? 'success';
    if ((r.status === 'success') !== (execution === 'success'))
      throw new DemoError(`activity step "${label}" ended ${r.status}, expected ${execution}`);
    truth.push({
      label,
      hash,
      height: Number(r.blockNumber),
      ...expect,
      sender: lc(expect.sender),
      recipient: expect.recipient && lc(expect.recipient),
      asset_contract: expect.asset_contract && lc(expect.asset_contract),
      execution,
      // Fee rule (domain notes): ceil(gasUsed × effectiveGasPrice / 10^12) in 6-decimal fee-token units.
      fee: formatUnits((r.gasUsed * r.effectiveGasPrice + 10n ** 12n - 1n) / 10n ** 12n, 6),
      fee_payer: lc(expect.fee_payer ?? expect.sender),
      fee_token: lc(expect.fee_token ?? TOKENS.alpha),
    });
    return r;
  };
  /** Sends one transaction (automine: its own block) and records it. */
  const step = async (label: string, send: () => Promise<Hash>, expect: Expect) => record(label, await send(), expect);
  /** Sends several transactions with automine off, mines them into ONE block, and records them (tx_index > 0). */
  const oneBlock = async (steps: [string, () => Promise<Hash>, Expect][]) => {
    await c0.request({ method: 'evm_setAutomine' as never, params: [false] as never });
    try {
      const hashes: Hash[] = [];
      for (const [, send] of steps) hashes.push(await send());
      await c0.request({ method: 'evm_mine' as never, params: [] as never });
      for (const [i, [label, , expect]] of steps.entries()) await record(label, hashes[i], expect);
    } finally {
      await c0.request({ method: 'evm_setAutomine' as never, params: [true] as never });
    }
  };
  const usd = (token: string, amount: string) => ({ asset: SYMBOLS[token], asset_contract: token, amount });

  // 1. Plain TIP-20 transfers, fees in two different tokens.
  await step('plain transfer', () => Actions.token.transfer(c0, { token: TOKENS.alpha, to: a1.address, amount: units('1.5'), gas: GAS }), {
    sender: a0.address,
    recipient: a1.address,
    ...usd(TOKENS.alpha, '1.5'),
    nominal: '1.5',
    exchange: null,
    protocol: null,
    category: 'transfer',
  });
  await step(
    'transfer paying fee in BetaUSD',
    () => Actions.token.transfer(c1beta, { token: TOKENS.beta, to: a2.address, amount: 1n, gas: GAS }),
    {
      sender: a1.address,
      recipient: a2.address,
      ...usd(TOKENS.beta, '0.000001'),
      nominal: '0.000001',
      exchange: null,
      protocol: null,
      category: 'transfer',
      fee_token: TOKENS.beta,
    },
  );

  // 2. transferWithMemo: a plain invoice memo, then an MPP-tagged one.
  await step(
    'transfer with memo',
    () =>
      Actions.token.transfer(c0, {
        token: TOKENS.pathUsd,
        to: a3.address,
        amount: units('2.25'),
        memo: pad(stringToHex('invoice-42'), { dir: 'right' }),
        gas: GAS,
      }),
    {
      sender: a0.address,
      recipient: a3.address,
      ...usd(TOKENS.pathUsd, '2.25'),
      nominal: '2.25',
      exchange: null,
      protocol: null,
      category: 'payment',
    },
  );
  await step(
    'MPP charge (transferWithMemo, MPP tag)',
    () =>
      Actions.token.transfer(c2, {
        token: TOKENS.alpha,
        to: a4.address,
        amount: units('0.01'),
        memo: mppMemo('api.example.com', 'agent-7', 'challenge-1'),
        gas: GAS,
      }),
    {
      sender: a2.address,
      recipient: a4.address,
      ...usd(TOKENS.alpha, '0.01'),
      nominal: '0.01',
      exchange: null,
      protocol: 'mpp',
      category: 'payment',
    },
  );

  // 3. A 0x76 batch of several calls across two tokens, one of them an MPP-tagged memo transfer.
  await step(
    '0x76 batch across two tokens',
    () =>
      c0.sendTransaction({
        gas: GAS,
        calls: [
          Actions.token.transfer.call({ token: TOKENS.alpha, to: a1.address, amount: units('3') }),
          Actions.token.transfer.call({
            token: TOKENS.beta,
            to: a2.address,
            amount: units('4'),
            memo: mppMemo('api.example.com', 'agent-7', 'challenge-2'),
          }),
          Actions.token.transfer.call({ token: TOKENS.alpha, to: a3.address, amount: units('0.5') }),
        ],
      } as never),
    {
      sender: a0.address,
      recipient: a1.address,
      ...usd(TOKENS.alpha, '3'),
      nominal: '7.5',
      exchange: null,
      protocol: 'mpp',
      category: 'payment',
    },
  );

  // 4. Fee sponsorship: a1 sends, a0 pays the fee (viem adds a0's fee-payer signature).
  let sponsoredAccepted = true;
  try {
    await step(
      'fee-sponsored transfer',
      () =>
        c1.sendTransaction({
          gas: GAS,
          feePayer: a0,
          calls: [Actions.token.transfer.call({ token: TOKENS.alpha, to: a3.address, amount: units('5') })],
        } as never),
      {
        sender: a1.address,
        recipient: a3.address,
        ...usd(TOKENS.alpha, '5'),
        nominal: '5',
        exchange: null,
        protocol: null,
        category: 'transfer',
        fee_payer: a0.address,
      },
    );
  } catch {
    sponsoredAccepted = false;
  }

  // 5. A reverted transfer (more than the balance): no legs, the fee is still charged.
  await step(
    'reverted transfer',
    () => Actions.token.transfer(c1, { token: TOKENS.beta, to: a3.address, amount: 10n ** 30n, gas: 200_000n }),
    {
      sender: a1.address,
      recipient: TOKENS.beta,
      asset: null,
      asset_contract: null,
      amount: null,
      nominal: null,
      exchange: null,
      protocol: null,
      category: 'transfer',
      execution: 'failed',
    },
  );

  // 6. A non-USD TIP-20 through the factory (currency EUR), minted, transferred and burnt.
  const created = await step(
    'create EUR token via factory',
    () => Actions.token.create(c0, { name: 'Paywatch Euro', symbol: 'PWEUR', currency: 'EUR', gas: GAS }),
    {
      sender: a0.address,
      recipient: Addresses.tip20Factory,
      asset: null,
      asset_contract: null,
      amount: null,
      nominal: null,
      exchange: null,
      protocol: null,
      category: 'contract_call',
    },
  );
  const [tokenCreated] = parseEventLogs({ abi: Abis.tip20Factory, logs: created.logs, eventName: 'TokenCreated' });
  const eur = lc(tokenCreated.args.token) as `0x${string}`;
  const eurLeg = (amount: string) => ({ asset: 'PWEUR', asset_contract: eur, amount });
  await step('grant issuer role', () => Actions.token.grantRoles(c0, { token: eur, roles: ['issuer'], to: a0.address, gas: GAS }), {
    sender: a0.address,
    recipient: eur,
    asset: null,
    asset_contract: null,
    amount: null,
    nominal: null,
    exchange: null,
    protocol: null,
    category: 'contract_call',
  });
  await step('mint EUR token', () => Actions.token.mint(c0, { token: eur, to: a0.address, amount: units('1000'), gas: GAS }), {
    sender: a0.address,
    recipient: a0.address,
    ...eurLeg('1000'),
    nominal: null,
    exchange: null,
    protocol: null,
    category: 'mint',
  });
  await step('EUR token transfer', () => Actions.token.transfer(c0, { token: eur, to: a2.address, amount: units('12.34'), gas: GAS }), {
    sender: a0.address,
    recipient: a2.address,
    ...eurLeg('12.34'),
    nominal: null,
    exchange: null,
    protocol: null,
    category: 'transfer',
  });
  await step('burn EUR token', () => Actions.token.burn(c0, { token: eur, amount: units('1'), gas: GAS }), {
    sender: a0.address,
    recipient: ZERO,
    ...eurLeg('1'),
    nominal: null,
    exchange: null,
    protocol: null,
    category: 'burn',
  });

  // 7. Stablecoin DEX: create the AlphaUSD/pathUSD pair, place a resting ask, then swap pathUSD into AlphaUSD.
  await step('DEX createPair', () => Actions.dex.createPair(c0, { base: TOKENS.alpha, gas: GAS }), {
    sender: a0.address,
    recipient: Addresses.stablecoinDex,
    asset: null,
    asset_contract: null,
    amount: null,
    nominal: null,
    exchange: null,
    protocol: null,
    category: 'contract_call',
  });
  await step(
    'DEX place (approve + place batch)',
    () =>
      c0.sendTransaction({
        gas: GAS,
        calls: [
          Actions.token.approve.call({ token: TOKENS.alpha, spender: Addresses.stablecoinDex, amount: units('100') }),
          Actions.dex.place.call({ token: TOKENS.alpha, type: 'sell', amount: units('100'), tick: 0 }),
        ],
      } as never),
    {
      sender: a0.address,
      recipient: Addresses.stablecoinDex,
      ...usd(TOKENS.alpha, '100'),
      nominal: '100',
      exchange: null,
      protocol: null,
      category: 'liquidity',
    },
  );
  await step(
    'DEX swapExactAmountIn (approve + swap batch)',
    () =>
      c1.sendTransaction({
        gas: GAS,
        calls: [
          Actions.token.approve.call({ token: TOKENS.pathUsd, spender: Addresses.stablecoinDex, amount: units('10') }),
          Actions.dex.sell.call({ tokenIn: TOKENS.pathUsd, tokenOut: TOKENS.alpha, amountIn: units('10'), minAmountOut: 0n }),
        ],
      } as never),
    {
      sender: a1.address,
      recipient: Addresses.stablecoinDex,
      ...usd(TOKENS.pathUsd, '10'),
      nominal: '10',
      exchange: VENUES.stablecoinDex,
      protocol: null,
      category: 'swap',
    },
  );

  await step(
    'reverted DEX swap (minAmountOut too high)',
    () =>
      c1.sendTransaction({
        gas: GAS,
        calls: [
          Actions.token.approve.call({ token: TOKENS.pathUsd, spender: Addresses.stablecoinDex, amount: units('1') }),
          Actions.dex.sell.call({ tokenIn: TOKENS.pathUsd, tokenOut: TOKENS.alpha, amountIn: units('1'), minAmountOut: units('2') }),
        ],
      } as never),
    {
      sender: a1.address,
      recipient: TOKENS.pathUsd,
      asset: null,
      asset_contract: null,
      amount: null,
      nominal: null,
      exchange: null,
      protocol: null,
      category: 'swap',
      execution: 'failed',
    },
  );
  await step(
    'reverted MPP charge (insufficient balance)',
    () =>
      Actions.token.transfer(c2, {
        token: TOKENS.alpha,
        to: a4.address,
        amount: 10n ** 30n,
        memo: mppMemo('api.example.com', 'agent-7', 'challenge-4'),
        gas: 200_000n,
      }),
    {
      sender: a2.address,
      recipient: TOKENS.alpha,
      asset: null,
      asset_contract: null,
      amount: null,
      nominal: null,
      exchange: null,
      protocol: 'mpp',
      category: 'payment',
      execution: 'failed',
    },
  );

  // 8. Three transfers from three accounts in one block (tx_index 0, 1, 2).
  await oneBlock([
    [
      'same-block transfer 1 of 3',
      () => Actions.token.transfer(c0, { token: TOKENS.beta, to: a4.address, amount: units('0.1'), gas: GAS }),
      {
        sender: a0.address,
        recipient: a4.address,
        ...usd(TOKENS.beta, '0.1'),
        nominal: '0.1',
        exchange: null,
        protocol: null,
        category: 'transfer',
      },
    ],
    [
      'same-block transfer 2 of 3',
      () => Actions.token.transfer(c1, { token: TOKENS.alpha, to: a4.address, amount: units('0.2'), gas: GAS }),
      {
        sender: a1.address,
        recipient: a4.address,
        ...usd(TOKENS.alpha, '0.2'),
        nominal: '0.2',
        exchange: null,
        protocol: null,
        category: 'transfer',
      },
    ],
    [
      'same-block MPP charge 3 of 3',
      () =>
        Actions.token.transfer(c2, {
          token: TOKENS.pathUsd,
          to: a4.address,
          amount: units('0.03'),
          memo: mppMemo('api.example.com', 'agent-9', 'challenge-3'),
          gas: GAS,
        }),
      {
        sender: a2.address,
        recipient: a4.address,
        ...usd(TOKENS.pathUsd, '0.03'),
        nominal: '0.03',
        exchange: null,
        protocol: 'mpp',
        category: 'payment',
      },
    ],
  ]);

  const lastTxHeight = Math.max(...truth.map((t) => t.height));
  // Two empty blocks: the finalized tag (latest − 2 with --slots-in-an-epoch 1) then covers the last transaction.
  await c0.request({ method: 'evm_mine' as never, params: [] as never });
  await c0.request({ method: 'evm_mine' as never, params: [] as never });
  const latestHeight = Number(await c0.getBlockNumber({ cacheTime: 0 }));
  return {
    transactions: truth,
    lastTxHeight,
    latestHeight,
    sponsoredAccepted,
    eurToken: { address: eur, symbol: 'PWEUR', currency: 'EUR' },
  };
}

export { generateLoad, type LoadOptions } from './activity/load.js';

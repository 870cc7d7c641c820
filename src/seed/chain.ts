/**
 * Synthetic observations for benchmarks and tests: realistic shapes (several tokens including a non-USD one,
 * many senders, DEX swaps, MPP-tagged payments, failed and receipt-less transactions, integrity stages and
 * detail), generated deterministically from a seed, and a bulk seeder that writes them through writeBlocks
 * (so seeded stores have the same counters, coverage and checkpoint as collected ones).
 */
import { createHash } from 'node:crypto';
import type { BlockObservations, Execution, Integrity, Observation } from '../domain/observation.js';
import { CHAIN_ID } from '../domain/observation.js';
import { toDecimal } from '../domain/money.js';
import type { Store } from '../store/store.js';
import { writeBlocks } from '../store/chain/index.js';
import { refreshPlannerStatistics, widenPageCacheForBulkLoad } from '../store/maintenance.js';

/**
 * Tokens of the synthetic chain: TIP-20 addresses, symbols and currencies (EUR has no dollar value). AlphaUSD
 * (anvil's genesis token) is not on Tempo mainnet's list, so under the default list its rows have no nominal value.
 */
export const SYNTHETIC_TOKENS = [
  { address: '0x20c0000000000000000000000000000000000000', symbol: 'pathUSD', currency: 'USD' },
  { address: '0x20c0000000000000000000000000000000000001', symbol: 'AlphaUSD', currency: 'USD' },
  { address: '0x20c000000000000000000000b9537d11c60e8b50', symbol: 'USDC.e', currency: 'USD' },
  { address: '0x20c00000000000000000000014f22ca97301eb73', symbol: 'USDT0', currency: 'USD' },
  { address: '0x20c0000000000000000000000000000000000e05', symbol: 'EURC', currency: 'EUR' },
] as const;

/** Venue names used by the synthetic set (as the decoder names them). */
export const SYNTHETIC_VENUES = ['Stablecoin DEX', 'Uniswap v3'] as const;

export interface SyntheticOptions {
  /** Number of observations to produce. */
  count: number;
  /** PRNG seed (same seed, same set). Default 1. */
  seed?: number;
  /** First block height. Default 1,000,000. */
  startHeight?: number;
  /** First block time, UTC Unix seconds. Default 1,767,225,600 (2026-01-01T00:00:00Z). */
  startTime?: number;
  /** Maximum transactions per block (each block holds 0..max, uniformly). Default 8. */
  maxTxPerBlock?: number;
}

/** mulberry32: a small, fast, seedable PRNG returning floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-byte 0x hex digest of `s`, sliced to `bytes` bytes (addresses: 20). */
export function hexOf(s: string, bytes = 32): `0x${string}` {
  return `0x${createHash('sha256')
    .update(s)
    .digest('hex')
    .slice(0, bytes * 2)}`;
}

const INTEGRITY_STAGES: Integrity['stages'] = [
  {
    level: 1,
    label: 'finalized receipt',
    status: 'pass',
    reason: 'block at or below the finalized head when read; receipt matches the transaction',
  },
  { level: 2, label: 'block commitment', status: 'pass', reason: 'transaction hash and transactionsRoot recomputed and equal' },
];

/**
 * Generates blocks of synthetic observations, heights and times increasing by one per block, until `count`
 * observations were produced (the last block may be cut short). Blocks with zero transactions occur.
 */
export function* syntheticBlocks(opts: SyntheticOptions): Generator<BlockObservations> {
  const rnd = prng(opts.seed ?? 1);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const wallets = Array.from({ length: 500 }, (_, i) => hexOf(`wallet:${opts.seed ?? 1}:${i}`, 20));
  const maxTx = opts.maxTxPerBlock ?? 8;
  let height = opts.startHeight ?? 1_000_000;
  let time = opts.startTime ?? 1_767_225_600;
  let made = 0;
  while (made < opts.count) {
    const blockHash = hexOf(`block:${opts.seed ?? 1}:${height}`);
    const n = Math.min(Math.floor(rnd() * (maxTx + 1)), opts.count - made);
    const observations: Observation[] = [];
    for (let i = 0; i < n; i++) {
      const hash = hexOf(`tx:${opts.seed ?? 1}:${height}:${i}`);
      const token = pick(SYNTHETIC_TOKENS);
      const sender = pick(wallets);
      const recipient = pick(wallets);
      const r = rnd();
      const execution: Execution = r < 0.9 ? 'success' : r < 0.98 ? 'failed' : 'unknown';
      const exchange = rnd() < 0.12 ? pick(SYNTHETIC_VENUES) : null;
      const mpp = !exchange && rnd() < 0.15;
      const atomic = BigInt(Math.floor(rnd() * 5_000_000_000) + 1);
      const amount = toDecimal(atomic, 6);
      const fee = execution === 'unknown' ? null : toDecimal(BigInt(Math.floor(rnd() * 5000) + 100), 6);
      const memo = mpp ? `0xef1ed71201${hash.slice(12)}` : null;
      observations.push({
        hash,
        time,
        height,
        tx_index: i,
        chain_id: CHAIN_ID,
        sender,
        recipient: exchange ? '0xdec0000000000000000000000000000000000000' : recipient,
        asset: token.symbol,
        asset_contract: token.address,
        amount,
        nominal_parts: token.currency === 'USD' ? [{ asset_contract: token.address, amount }] : null,
        fee,
        exchange,
        protocol: mpp ? 'mpp' : null,
        category: exchange ? 'swap' : mpp ? 'payment' : 'transfer',
        execution,
        decode: execution === 'unknown' ? 'partial' : 'full',
        integrity: {
          score: 2,
          maximum: 5,
          version: '1',
          scope: 'transaction-in-finalized-block',
          stages: INTEGRITY_STAGES,
          evaluated_at: new Date(time * 1000).toISOString(),
          independent_consensus_verified: false,
        },
        detail: {
          transaction: {
            hash,
            type: '0x76',
            from: sender,
            nonce: String(height % 9973),
            gas: '120000',
            blockNumber: String(height),
            transactionIndex: String(i),
          },
          receipt:
            execution === 'unknown'
              ? null
              : {
                  status: execution === 'success' ? '0x1' : '0x0',
                  gasUsed: '52000',
                  feeToken: SYNTHETIC_TOKENS[0].address,
                  feePayer: sender,
                  logs: 2,
                },
          evidence: {
            block_hash: blockHash,
            transaction_index: i,
            source: 'synthetic',
            fetched_at: new Date(time * 1000).toISOString(),
            roots_checked: ['transactionsRoot'],
          },
          legs: [
            {
              from: sender,
              to: recipient,
              asset: token.symbol,
              asset_contract: token.address,
              amount,
              amount_atomic: atomic.toString(),
              log_index: 0,
              memo,
              kind: 'transfer',
            },
          ],
          calls: null,
          forensics: [],
          unknown: [],
        },
      });
    }
    made += n;
    yield { height, hash: blockHash, time, observations };
    height++;
    time += 1;
  }
}

export interface SeedResult {
  inserted: number;
  blocks: number;
  /** Wall time in seconds. */
  seconds: number;
}

/**
 * Bulk-writes `opts.count` synthetic observations in transactions of about `rowsPerWrite` rows (default 20,000
 * on SQLite, where one transaction is one fsync and the writer holds everything in its page cache; 5,000 on
 * PostgreSQL, whose commits are cheap and whose long transactions hold locks), each a writeBlocks call
 * (observations, details, leg recipients, coverage and checkpoint together; multi-row INSERTs of up to 1000 rows).
 * @param onProgress called after each write with the number of observations written so far
 */
export async function seedStore(
  store: Store,
  opts: SyntheticOptions & { rowsPerWrite?: number; onProgress?: (done: number) => void },
): Promise<SeedResult> {
  const started = Date.now();
  await widenPageCacheForBulkLoad(store);
  const per = opts.rowsPerWrite ?? (store.dialect === 'sqlite' ? 20_000 : 5000);
  let batch: BlockObservations[] = [];
  let rows = 0;
  let done = 0;
  let blocks = 0;
  const flush = async () => {
    if (!batch.length) return;
    const last = batch[batch.length - 1];
    await writeBlocks(store, batch, { height: last.height, hash: last.hash });
    done += rows;
    blocks += batch.length;
    batch = [];
    rows = 0;
    opts.onProgress?.(done);
  };
  for (const b of syntheticBlocks(opts)) {
    batch.push(b);
    rows += b.observations.length;
    if (rows >= per) await flush();
  }
  await flush();
  await refreshPlannerStatistics(store);
  return { inserted: done, blocks, seconds: (Date.now() - started) / 1000 };
}

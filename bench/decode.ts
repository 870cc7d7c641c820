/**
 * Decode and integrity micro-benchmark over the recorded fixtures (test/fixtures/chain/blocks.json,
 * test/fixtures/integrity/block-many.json): microseconds of CPU-bound work per transaction for
 * evaluateBlockIntegrity (stages 1–2, tries included), decodeBlock (given integrity) and both together, the
 * collector's per-block work minus I/O. No node, no store. Results: bench/results/decode.{json,md}.
 * Run: node bin/run-ts.js bench/decode.ts [--rounds N] [--print-only]   (each round decodes every recorded block once)
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { decodeBlock } from '../src/chain/decode/index.js';
import { evaluateBlockIntegrity } from '../src/chain/integrity/index.js';
import type { BlockIntegrity, FetchedBlock } from '../src/chain/types.js';
import { loadChainFixtures } from '../test/fixtures/chain/load.js';
import { writeResults } from './lib/load.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '200' }, 'print-only': { type: 'boolean', default: false } },
});
const ROUNDS = Number(values.rounds);

const fx = loadChainFixtures();
const many = JSON.parse(readFileSync(new URL('../test/fixtures/integrity/block-many.json', import.meta.url), 'utf8')) as FetchedBlock;
const blocks = [...fx.blocks, many];
const txPerRound = blocks.reduce((n, f) => n + f.block.transactions.length, 0);
const integrities: BlockIntegrity[] = await Promise.all(blocks.map((f) => evaluateBlockIntegrity(f)));

/** Runs `work` once to warm up, then ROUNDS times; µs per transaction. */
async function perTx(work: () => Promise<void> | void): Promise<number> {
  await work();
  const t = performance.now();
  for (let r = 0; r < ROUNDS; r++) await work();
  return Number((((performance.now() - t) * 1000) / (ROUNDS * txPerRound)).toFixed(1));
}

const integrity = await perTx(async () => {
  for (const f of blocks) await evaluateBlockIntegrity(f);
});
const decode = await perTx(() => {
  for (const [i, f] of blocks.entries()) decodeBlock(f, fx.tokens, integrities[i]!);
});
const both = await perTx(async () => {
  for (const f of blocks) decodeBlock(f, fx.tokens, await evaluateBlockIntegrity(f));
});

const result = {
  blocks: blocks.length,
  transactions_per_round: txPerRound,
  rounds: ROUNDS,
  us_per_tx: { integrity, decode, integrity_and_decode: both },
};
const md = [
  '# Decode and integrity micro-benchmark',
  '',
  `Command: \`node bin/run-ts.js bench/decode.ts --rounds ${ROUNDS}\`. ${blocks.length} recorded blocks (test/fixtures/chain/blocks.json and test/fixtures/integrity/block-many.json), ${txPerRound} transactions per round, ${ROUNDS} rounds after one warm-up. Run at ${new Date().toISOString()}, ${process.platform} ${process.arch}, Node ${process.version}, on a shared 2-core machine.`,
  '',
  '| work | µs per transaction |',
  '|---|---:|',
  `| evaluateBlockIntegrity (stages 1–2: hashes, tries, header) | ${integrity} |`,
  `| decodeBlock (integrity given) | ${decode} |`,
  `| both, as the collector does per block | ${both} |`,
].join('\n');
if (!values['print-only']) writeResults('decode', result, md);
process.stdout.write(`${md}\n`);

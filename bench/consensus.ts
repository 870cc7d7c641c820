/**
 * Finality verification benchmark: milliseconds per certificate through the six checks (verifyFinality, warm,
 * in process) on the generated committee vectors (`../shared/consensus`), beside its parts and the unbatched
 * alternative (ox's `Bls.verify` on the vote and on the seed, with fresh points each time) in the same run; the
 * first verification of a fresh process (the compiled module imported, the key parsed, one certificate verified:
 * what a command that verifies one certificate costs) beside `node -e 0`; and, as the reference for the
 * collector's budget (≤ 5% CPU with one certificate per 1,000 blocks), integrity + decode per transaction on the
 * recorded fixtures in the same run. No node, no store.
 * Results: bench/results/consensus.{json,md}.
 * Run: node bin/run-ts.js bench/consensus.ts [--rounds N] [--cold N] [--print-only]
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Bls, BlsPoint } from 'ox';
import { parseSignature, verifyCertificateSignatures } from '../src/chain/consensus/bls.js';
import {
  anchorKeyChain,
  decodeFinalization,
  FINALIZE_NAMESPACE,
  MINSIG_DST,
  parseGroupKey,
  SEED_NAMESPACE,
  signedMessage,
  verifyFinality,
} from '../src/chain/consensus/index.js';
import { decodeBlock } from '../src/chain/decode/index.js';
import { evaluateBlockIntegrity } from '../src/chain/integrity/index.js';
import type { FetchedBlock } from '../src/chain/types.js';
import { NODE_FLAGS } from '../src/cli/node-flags.js';
import { loadChainFixtures } from '../test/fixtures/chain/load.js';
import { committeeVectors, encodeDkgOutcome } from '../test/helpers/consensus.js';
import { writeResults } from './lib/load.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '60' },
    cold: { type: 'string', default: '5' },
    'print-only': { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(values.rounds);
const COLD = Number(values.cold);

const v = committeeVectors();
const at3 = v.updates[0]!;
const keyChain = anchorKeyChain(encodeDkgOutcome({ epoch: 0, groupKey: v.epoch0KeyCompressed }), 'vectors');
const options = { keyChain, epochLength: v.epochLength };
const input = { certificate: at3.tempoCertificate, height: at3.height, blockHash: at3.headerHash, context: null };

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;
const round2 = (x: number) => Number(x.toFixed(2));

/** Runs `work` once to warm up, then ROUNDS times; milliseconds per run (median, p90). */
function perRun(work: () => unknown): { median: number; p90: number } {
  work();
  const ms: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = performance.now();
    work();
    ms.push(performance.now() - t);
  }
  return { median: round2(quantile(ms, 0.5)), p90: round2(quantile(ms, 0.9)) };
}

if (verifyFinality(input, options).status !== 'verified') throw new Error('the vector does not verify');

const full = perRun(() => verifyFinality(input, options));
const f = decodeFinalization(at3.tempoCertificate);
const decode = perRun(() => {
  const d = decodeFinalization(at3.tempoCertificate);
  parseSignature(d.voteSignature, 'vote');
  parseSignature(d.seedSignature, 'seed');
});
const key = parseGroupKey(v.epoch0KeyCompressed);
const vote = parseSignature(f.voteSignature, 'vote');
const seed = parseSignature(f.seedSignature, 'seed');
const batched = perRun(() =>
  verifyCertificateSignatures(
    key,
    { namespace: FINALIZE_NAMESPACE, message: f.proposal, signature: vote },
    { namespace: SEED_NAMESPACE, message: f.round, signature: seed },
  ),
);
const oxTwice = perRun(() => {
  const publicKey = BlsPoint.fromHex(v.epoch0KeyCompressed, 'G2');
  for (const [ns, message, sig] of [
    [FINALIZE_NAMESPACE, f.proposal, f.voteSignature],
    [SEED_NAMESPACE, f.round, f.seedSignature],
  ] as const) {
    if (!Bls.verify({ payload: signedMessage(ns, message), publicKey, signature: BlsPoint.fromBytes(sig, 'G1'), suite: MINSIG_DST }))
      throw new Error('ox disagrees');
  }
});

// A fresh process: import the compiled module, anchor, verify one certificate (dist/ is built first).
const build = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { encoding: 'utf8' });
if (build.status !== 0) throw new Error(`build failed: ${build.stdout}${build.stderr}`);
const script = `
const c = await import('./dist/chain/consensus/index.js');
const v = JSON.parse(${JSON.stringify(readFileSync(new URL('../../shared/consensus/generated-committee-vectors.json', import.meta.url), 'utf8'))});
const u = v.updates[0];
const keyChain = c.anchorKeyChain(${JSON.stringify(encodeDkgOutcome({ epoch: 0, groupKey: v.epoch0KeyCompressed }))}, 'vectors');
const r = c.verifyFinality({ certificate: u.tempoCertificate, height: u.height, blockHash: u.headerHash, context: null }, { keyChain, epochLength: v.epochLength });
if (r.status !== 'verified') process.exit(3);`;
function timed(args: string[]): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`node ${args.join(' ').slice(0, 60)} exited ${r.status}: ${r.stderr.slice(-300)}`);
  return performance.now() - t;
}
const coldRuns: number[] = [];
const bareRuns: number[] = [];
timed([...NODE_FLAGS, '--input-type=module', '-e', script]); // uncounted: file cache
for (let i = 0; i < COLD; i++) {
  bareRuns.push(timed([...NODE_FLAGS, '-e', '0']));
  coldRuns.push(timed([...NODE_FLAGS, '--input-type=module', '-e', script]));
}
const cold = round2(quantile(coldRuns, 0.5));
const bare = round2(quantile(bareRuns, 0.5));

// The collector's per-transaction work on recorded blocks (integrity + decode), for the budget.
const fx = loadChainFixtures();
const many = JSON.parse(readFileSync(new URL('../test/fixtures/integrity/block-many.json', import.meta.url), 'utf8')) as FetchedBlock;
const blocks = [...fx.blocks, many];
const txPerRound = blocks.reduce((n, b) => n + b.block.transactions.length, 0);
const perRound = perRun(() => {
  for (const b of blocks) decodeBlock(b, fx.tokens, evaluateBlockIntegrity(b));
});
const usPerTx = round2((perRound.median * 1000) / txPerRound);
// The ingest benchmark's 20,000 transactions in 2,000 blocks: one certificate per 1,000 blocks and one at the head.
const certificates = 2_000 / 1_000 + 1;
const share = (certificates * full.median) / (20_000 * usPerTx * 1e-3 + certificates * full.median);

const result = {
  rounds: ROUNDS,
  ms_per_verification: full,
  parts_ms: { decode_and_points: decode, signatures_batched: batched, ox_bls_verify_vote_and_seed: oxTwice },
  fresh_process_ms: { verify_one: cold, node_e_0: bare, runs: COLD },
  reference: { integrity_and_decode_us_per_tx: usPerTx, transactions_per_round: txPerRound },
  ingest_20000_projection: { certificates, verification_share_of_integrity_and_decode: round2(share * 100) },
};
const md = [
  '# Finality verification',
  '',
  `Command: \`node bin/run-ts.js bench/consensus.ts --rounds ${ROUNDS} --cold ${COLD}\`. The generated committee certificate at height 3 (\`../shared/consensus/generated-committee-vectors.json\`), ${ROUNDS} rounds after one warm-up. Run at ${new Date().toISOString()}, ${process.platform} ${process.arch}, Node ${process.version}, on a shared 2-core machine (other work running: compare within the run).`,
  '',
  '| work | median ms | p90 ms |',
  '|---|---:|---:|',
  `| **verifyFinality: the six checks, vote and seed** | **${full.median}** | ${full.p90} |`,
  `| decode the certificate and both G1 points | ${decode.median} | ${decode.p90} |`,
  `| both signatures, one pairing product (what check 6 runs) | ${batched.median} | ${batched.p90} |`,
  `| both signatures with ox \`Bls.verify\` each (the unbatched alternative) | ${oxTwice.median} | ${oxTwice.p90} |`,
  '',
  `Fresh process (median of ${COLD}, process start included): import the compiled module, anchor a key, verify one certificate **${cold} ms**; \`node -e 0\` ${bare} ms in the same run.`,
  '',
  `Reference in the same run: integrity + decode ${usPerTx} µs per transaction (${txPerRound} recorded transactions). With the collector's spacing on the ingest benchmark (20,000 transactions in 2,000 blocks: ${certificates} certificates), verification would be ${round2(share * 100)}% of integrity + decode alone, an upper bound of its share of the collector's CPU (which also parses, writes and waits).`,
].join('\n');
if (!values['print-only']) writeResults('consensus', result, md);
process.stdout.write(`${md}\n`);

/**
 * Payer-analysis benchmark (the trust check's "who pays", src/trust/payers.ts), run by `bench/trust.ts --payers`:
 * a store of `--count` observations (default 1,000,000) over 30 days, written through the real writer (so the
 * rollups are kept as the collector keeps them), in which one payTo receives `--target` payments (50,000) from
 * `--payers` payers (5,000), each first funded in the window by one of 200 funders; the rest are payments between
 * other addresses. Measures, in process, the time analysePayers adds to a check (it is uncached: every run reads
 * the store): p50 / p99 over `--runs`, on SQLite and PostgreSQL, beside the CPU time of this process (all its
 * threads: SQLite's readers included, PostgreSQL's server not), which a loaded machine does not inflate as it does
 * wall time. Target: p99 ≤ 200 ms. `--reuse` times a store an earlier run seeded.
 * Results: bench/results/trust-payers.{json,md}.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { openStore, type Store } from '../src/store/db.js';
import type { PreparedBlock, SerializedObservation } from '../src/store/chain/rows.js';
import { writeBlocksBatched } from './lib/seeded.js';
import { hexOf, prng } from '../src/seed/chain.js';
import { analysePayers } from '../src/trust/payers.js';
import { benchStore } from './lib/db.js';
import { writeResults } from './lib/load.js';
import { checkTimes } from './trust-payers-check.js';
import { pct, profileSteps } from './trust-payers-profile.js';

const DAYS = 30;
const PATH_USD = '0x20c0000000000000000000000000000000000000';
const FUNDERS = 200;

export interface PayerBenchOptions {
  count: number;
  target: number;
  payers: number;
  runs: number;
  dialect: string;
  /** Reuse a store seeded by an earlier run of the same --count (bench/tmp, or the PostgreSQL database) instead of seeding. */
  reuse: boolean;
  /** Store name (bench/tmp/NAME.sqlite, PostgreSQL database NAME); default trust_payers_COUNT. */
  name?: string;
  argv: string;
}

function observation(
  hash: string,
  time: number,
  height: number,
  i: number,
  payer: string,
  recipient: string,
  amount: string,
): SerializedObservation {
  return {
    hash,
    time,
    row: {
      hash,
      time,
      height,
      tx_index: i,
      chain_id: 4217,
      sender: payer,
      recipient,
      asset: 'pathUSD',
      asset_contract: PATH_USD,
      amount,
      nominal_parts: JSON.stringify([[PATH_USD, amount]]),
      fee: '0.001',
      exchange: null,
      protocol: null,
      category: 'transfer',
      execution: 'success',
      decode: 'full',
      payer,
      self_payment: payer === recipient ? 1 : 0,
      client_fingerprint: null,
      server_fingerprint: null,
      service_id: null,
      provider: null,
      attribution_method: null,
      attribution_ambiguous: 0,
      integrity: '{"score":2,"maximum":5}',
    },
    detail: '{}',
    legRecipients: [],
  } as SerializedObservation;
}

/**
 * The synthetic chain as blocks of 50 observations, times spread evenly over the 30 days ending at `end`: every
 * k-th observation belongs to the target (first the payers' funding, then their payments), the others are
 * payments among 100,000 other addresses.
 */
function* blocks(o: PayerBenchOptions, end: number, payTo: string): Generator<PreparedBlock> {
  const rnd = prng(11);
  const start = end - DAYS * 86_400;
  const perBlock = 50;
  const payers = Array.from({ length: o.payers }, (_, i) => hexOf(`payer:${i}`, 20));
  const funders = Array.from({ length: FUNDERS }, (_, i) => hexOf(`funder:${i}`, 20));
  const events = o.payers + o.target;
  const every = Math.max(1, Math.floor(o.count / events));
  for (let h = 0; h * perBlock < o.count; h++) {
    const time = start + Math.floor((h * perBlock * DAYS * 86_400) / o.count);
    const observations: SerializedObservation[] = [];
    for (let i = 0; i < perBlock && h * perBlock + i < o.count; i++) {
      const r = h * perBlock + i;
      const hash = hexOf(`tx:${r}`, 32);
      const e = r % every === 0 ? r / every : -1;
      const amount = (Math.floor(rnd() * 100_000 + 1) / 1e6).toString();
      if (e >= 0 && e < o.payers) observations.push(observation(hash, time, 1_000_000 + h, i, funders[e % FUNDERS], payers[e], '1'));
      else if (e >= o.payers && e < events)
        observations.push(observation(hash, time, 1_000_000 + h, i, payers[(e - o.payers) % o.payers], payTo, amount));
      else
        observations.push(
          observation(
            hash,
            time,
            1_000_000 + h,
            i,
            hexOf(`a:${Math.floor(rnd() * 100_000)}`, 20),
            hexOf(`b:${Math.floor(rnd() * 100_000)}`, 20),
            amount,
          ),
        );
    }
    yield { height: 1_000_000 + h, hash: hexOf(`block:${h}`, 32), time, observations };
  }
}

async function seed(store: Store, o: PayerBenchOptions, end: number, payTo: string): Promise<number> {
  return Math.round(await writeBlocksBatched(store, blocks(o, end, payTo)));
}

/** Seeds each dialect's store and times analysePayers of the target. */
export async function payerBench(o: PayerBenchOptions): Promise<void> {
  const end = Math.floor(Date.now() / 1000);
  const payTo = hexOf('payto:target', 20);
  const results: Record<string, unknown>[] = [];
  for (const dialect of o.dialect === 'both' ? (['sqlite', 'postgres'] as const) : [o.dialect as 'sqlite' | 'postgres']) {
    const name = o.name ?? `trust_payers_${o.count}`;
    if (dialect === 'sqlite') mkdirSync('bench/tmp', { recursive: true });
    if (dialect === 'sqlite' && !o.reuse) for (const s of ['', '-wal', '-shm']) rmSync(`bench/tmp/${name}.sqlite${s}`, { force: true });
    const db = await benchStore(dialect, name, { fresh: !o.reuse });
    const store = await openStore(db);
    try {
      const seeded_s = o.reuse ? null : await seed(store, o, end, payTo);
      const now = new Date(end * 1000);
      const first = await analysePayers(store, payTo, { now });
      const ms: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < o.runs; i++) {
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        await analysePayers(store, payTo, { now });
        const c = process.cpuUsage(c0);
        ms.push(performance.now() - t0);
        cpu.push((c.user + c.system) / 1000);
      }
      results.push({
        dialect,
        observations: o.count,
        payments: first.payments,
        distinct_payers: first.distinct_payers,
        payers_examined: first.payers_examined,
        funding_links_total: first.funding_links_total,
        p50_ms: pct(ms, 50),
        p99_ms: pct(ms, 99),
        cpu_p50_ms: pct(cpu, 50),
        cpu_p99_ms: pct(cpu, 99),
        steps: await profileSteps(store, payTo, now, o.runs),
        seeded_s,
        loadavg: (await import('node:os')).loadavg().map((x) => Math.round(x * 10) / 10),
      });
    } finally {
      await store.close();
    }
    results[results.length - 1].checks = await checkTimes(db, payTo, o.runs);
    console.log(JSON.stringify(results[results.length - 1]));
  }
  const fmt = (r: Record<string, any>) =>
    `| ${r.dialect} | ${r.observations} | ${r.payments} | ${r.distinct_payers} | ${r.payers_examined} | ${r.p50_ms} / **${r.p99_ms}** | ${r.cpu_p50_ms} / ${r.cpu_p99_ms} | ${r.seeded_s ?? 'reused'} | ${r.loadavg.join(' ')} |`;
  writeResults(
    'trust-payers',
    { ...o, results },
    [
      '# Trust check: payer analysis',
      '',
      `Command: \`node bin/run-ts.js bench/trust.ts --payers ${o.argv}\`. Run at ${new Date().toISOString()}. One payTo with ${o.target} payments from ${o.payers} payers (each first funded in the window by one of ${FUNDERS} funders) among ${o.count} observations over 30 days; analysePayers in process, uncached, ${o.runs} runs.`,
      '',
      '| dialect | observations | payments analysed | distinct payers | payers examined | p50 / p99 ms (≤ 200) | our process CPU p50 / p99 ms | seeded in s | load average |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---|',
      ...results.map(fmt),
      '',
      'Per store read (each timed alone, same runs; `total` is analysePayers whole, the rest of it is JavaScript), p50 / p99 ms:',
      '',
      '| dialect | total | payments_into | covered_window | first_inflows | hashes |',
      '|---|---:|---:|---:|---:|---:|',
      ...results.map(
        (r: Record<string, any>) =>
          `| ${r.dialect} | ${['total', 'payments_into', 'covered_window', 'first_inflows', 'hashes'].map((k) => `${r.steps[k].p50} / ${r.steps[k].p99}`).join(' | ')} |`,
      ),
      '',
      `POST /v1/check of the demo x402 v2 service whose payTo is the seeded payTo vs an address without payments (${o.runs} checks each, interleaved, after 5 uncounted rounds), p50 / p99 ms; CPU of the process doing the check (inject: this one, http: the server), PostgreSQL's server not counted; first: the first check with payments (wall / CPU):`,
      '',
      '| dialect | transport | with payments | without | added | CPU with | CPU without | CPU added | first |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|',
      ...results.flatMap((r: Record<string, any>) =>
        r.checks.map(
          (c: Record<string, any>) =>
            `| ${r.dialect} | ${c.transport} | ${c.with_payments.p50} / ${c.with_payments.p99} | ${c.without.p50} / ${c.without.p99} | ${c.added.p50} / **${c.added.p99}** | ${c.cpu.with_payments.p50} / ${c.cpu.with_payments.p99} | ${c.cpu.without.p50} / ${c.cpu.without.p99} | ${c.cpu.added.p50} / ${c.cpu.added.p99} | ${c.first_with_payments.wall} / ${c.first_with_payments.cpu} |`,
        ),
      ),
    ].join('\n'),
  );
}

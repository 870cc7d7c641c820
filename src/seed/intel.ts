/**
 * Synthetic provider intelligence for benchmarks: providers, services, dated snapshots, offers (from snapshots
 * and from a directory listing), change records, a source and a finished collection run, generated
 * deterministically from indexes and written with batched multi-row inserts in transactions (src/store/intel/bulk.ts;
 * the repo's per-snapshot writes would take hours at a million offers). Rows are built with the repo's own row mappers
 * (../store/intel/rows.ts), so seeded rows have exactly the stored form of collected ones.
 *
 * Shape of each service (every `servicesPerProvider` services share one provider):
 * - `snapshotsPerService` hourly checks, each with `offersPerSnapshot` offers (x402 v2 from the PAYMENT-REQUIRED
 *   header, or for every 4th service MPP from WWW-Authenticate);
 * - every 5th service changed its price at its last check (one `price_changed` record per offer);
 * - every 20th service failed its last two checks (404, `status_changed` record); its missing offers are made up by
 *   a directory listing (citing its directory answer, an intel_source_answers row), so every service holds exactly
 *   snapshotsPerService × offersPerSnapshot offer rows;
 *   every 3rd of those failed ten days before the seed's start. Staleness is decided at query time (failing longer
 *   than the stale period), so on a store queried weeks after `start` every failing service is stale.
 * Evidence bytes are not archived (snapshots and directory answers cite a hash, intel_evidence stays empty).
 */
import { createHash } from 'node:crypto';
import type { Offer } from '../domain/intel.js';
import { serviceId } from '../intel/service-id.js';
import { uuidv7 } from '../intel/probe/snapshot-id.js';
import { toDecimal } from '../domain/money.js';
import type { Store } from '../store/store.js';
import { emptyIntelRows, insertIntelRows, insertSourceAndRun } from '../store/intel/bulk.js';
import { changeToRow, offerToRow, rowToOffer, snapshotToRow } from '../store/intel/rows.js';
import type { Change, Snapshot } from '../domain/intel.js';
import { TEMPO_MAINNET } from '../domain/tempo.js';

export interface IntelSeedOptions {
  /** Number of providers (domains). */
  providers: number;
  /** Services per provider. Default 10. */
  servicesPerProvider?: number;
  /** Dated checks per service (≥ 3). Default 5. */
  snapshotsPerService?: number;
  /** Offers per check. Default 2. */
  offersPerSnapshot?: number;
  /** Time of each service's first check (ISO 8601). Default 2026-11-01T00:00:00.000Z. */
  start?: string;
  /** Called after each chunk with the offer rows written so far. */
  onProgress?: (offers: number) => void;
}

export interface IntelSeedResult {
  providers: number;
  services: number;
  snapshots: number;
  offers: number;
  changes: number;
  /** Wall-clock seconds the seeding took. */
  seconds: number;
}

/** Words that name provider kinds and appear in domains and descriptions, so `q` searches match a tenth each. */
export const SEED_WORDS = ['weather', 'search', 'llm', 'image', 'news', 'maps', 'stocks', 'translate', 'ocr', 'scrape'] as const;

/** The name of the synthetic directory source. */
export const SEED_SOURCE = 'bench-directory';

const TOKENS = ['0x20c0000000000000000000000000000000000000', '0x20c0000000000000000000000000000000000001'];
const HOUR_MS = 3_600_000;

/** The domain of provider `p` (lower-case, as providerDomain would give). */
export function seedDomain(p: number): string {
  return `p${String(p).padStart(6, '0')}.${SEED_WORDS[p % SEED_WORDS.length]}.bench`;
}

/** The URL of service `j` of provider `p`. */
export function seedServiceUrl(p: number, j: number): string {
  return `https://${seedDomain(p)}/v1/${SEED_WORDS[p % SEED_WORDS.length]}/${j}`;
}

const hex = (s: string, bytes = 32) =>
  createHash('sha256')
    .update(s)
    .digest('hex')
    .slice(0, bytes * 2);

/** The offers service `s` advertises at price step `step` (atomic price grows by step). */
function offersOf(s: number, url: string, count: number, step: number, source: Offer['source']): Offer[] {
  const mpp = s % 4 === 3;
  const payTo = `0x${hex(`payto:${s}`, 20)}`;
  return Array.from({ length: count }, (_, k) => {
    const atomic = String(1000 * (1 + (s % 97)) + 10 * k + step);
    return {
      protocol: mpp ? 'mpp' : 'x402',
      x402_version: mpp ? null : 2,
      scheme: mpp ? 'charge' : 'exact',
      method: mpp ? 'tempo' : null,
      network: TEMPO_MAINNET,
      asset: TOKENS[k % TOKENS.length],
      amount_atomic: atomic,
      amount: toDecimal(atomic, 6),
      decimals: 6,
      pay_to: payTo,
      max_timeout_seconds: mpp ? null : 60,
      expires: null,
      description: `synthetic offer ${k}`,
      resource: url,
      extra: mpp ? null : { name: k % 2 ? 'AlphaUSD' : 'pathUSD', version: '1' },
      source: source === 'directory' ? 'directory' : mpp ? 'www-authenticate' : 'header',
    };
  });
}

/**
 * Seeds an empty intel area (see the module comment for the shape), in chunks of 100 providers per transaction,
 * then one source row and one finished collection run (written last: a store with a finished run was seeded whole).
 * @throws when the intel tables already hold rows with the same keys (seed an empty store)
 */
export async function seedIntel(store: Store, opts: IntelSeedOptions): Promise<IntelSeedResult> {
  const t0 = performance.now();
  const perProvider = opts.servicesPerProvider ?? 10;
  const snapsPer = Math.max(3, opts.snapshotsPerService ?? 5);
  const offersPer = opts.offersPerSnapshot ?? 2;
  const start = Date.parse(opts.start ?? '2026-11-01T00:00:00.000Z');
  const totals = { providers: 0, services: 0, snapshots: 0, offers: 0, changes: 0 };
  const CHUNK = 100;

  for (let p0 = 0; p0 < opts.providers; p0 += CHUNK) {
    const rows = emptyIntelRows();
    for (let p = p0; p < Math.min(opts.providers, p0 + CHUNK); p++) {
      const domain = seedDomain(p);
      for (let j = 0; j < perProvider; j++) {
        const s = p * perProvider + j;
        const url = seedServiceUrl(p, j);
        const service_id = serviceId('GET', url, null);
        const failing = s % 20 === 7;
        const base = failing && s % 60 === 7 ? start - 10 * 24 * HOUR_MS : start;
        const snaps: Snapshot[] = [];
        for (let k = 0; k < snapsPer; k++) {
          const at = base + k * HOUR_MS + (s % 3_600) * 1000;
          const down = failing && k >= snapsPer - 2;
          const step = s % 5 === 0 && k === snapsPer - 1 ? 5 : 0;
          const snapshot_id = uuidv7(at, createHash('sha256').update(`snapshot:${s}:${k}`).digest().subarray(0, 16));
          const offers = down ? [] : offersOf(s, url, offersPer, step, 'header');
          const snap: Snapshot = {
            snapshot_id,
            service_id,
            checked_at: new Date(at).toISOString(),
            http_status: down ? 404 : 402,
            latency_ms: 20 + (s % 50),
            outcome: down ? 'not_found' : 'payment_required',
            error: null,
            evidence_hash: hex(`evidence:${snapshot_id}`),
            offers,
          };
          snaps.push(snap);
          rows.intel_snapshots.push(snapshotToRow(snap, domain));
          for (const o of offers)
            rows.intel_offers.push(
              offerToRow(o, {
                service_id,
                domain,
                snapshot_id,
                source_name: null,
                observed_at: snap.checked_at,
                evidence_hash: snap.evidence_hash,
              }),
            );
        }
        const last = snaps[snapsPer - 1];
        const prev = snaps[snapsPer - 2];
        const changes: Change[] = [];
        if (failing) {
          const first = snaps[snapsPer - 3];
          changes.push({
            service_id,
            domain,
            kind: 'status_changed',
            at: prev.checked_at,
            before_snapshot_id: first.snapshot_id,
            after_snapshot_id: prev.snapshot_id,
            before: { http_status: 402 },
            after: { http_status: 404 },
          });
          const listed = offersOf(s, url, 2 * offersPer, 0, 'directory');
          // The directory answer the listing was read from (its archived bytes are not seeded, as for snapshots).
          const answer = {
            snapshot_id: uuidv7(base, createHash('sha256').update(`answer:${s}`).digest().subarray(0, 16)),
            source_name: SEED_SOURCE,
            url: 'https://directory.bench/discovery/resources',
            fetched_at: new Date(base).toISOString(),
            http_status: 200,
            evidence_hash: '',
          };
          answer.evidence_hash = hex(`evidence:${answer.snapshot_id}`);
          rows.intel_source_answers.push(answer);
          for (const o of listed)
            rows.intel_offers.push(
              offerToRow(o, {
                service_id,
                domain,
                snapshot_id: answer.snapshot_id,
                source_name: SEED_SOURCE,
                observed_at: answer.fetched_at,
                evidence_hash: answer.evidence_hash,
              }),
            );
        } else if (s % 5 === 0) {
          for (const [k, o] of prev.offers.entries())
            changes.push({
              service_id,
              domain,
              kind: 'price_changed',
              at: last.checked_at,
              before_snapshot_id: prev.snapshot_id,
              after_snapshot_id: last.snapshot_id,
              before: { offer: k, amount_atomic: o.amount_atomic },
              after: { offer: k, amount_atomic: last.offers[k].amount_atomic },
            });
        }
        for (const c of changes) rows.intel_changes.push(changeToRow(c));
        const good = failing ? snaps[snapsPer - 3] : last;
        rows.intel_services.push({
          service_id,
          domain,
          method: 'GET',
          url,
          tool: null,
          description: `${SEED_WORDS[p % SEED_WORDS.length]} endpoint ${j}`,
          first_seen: snaps[0].checked_at,
          last_seen: last.checked_at,
          sources: JSON.stringify([SEED_SOURCE]),
          last_snapshot_id: last.snapshot_id,
          last_checked_at: last.checked_at,
          last_outcome: last.outcome,
          last_http_status: last.http_status,
          last_good_at: good.checked_at,
          failing_since: failing ? prev.checked_at : null,
          // The copies recordSnapshot keeps (intel_0002), so listings of a seeded store read no join either.
          last_latency_ms: last.latency_ms,
          last_error: last.error,
          last_evidence_hash: last.evidence_hash,
          last_offers: JSON.stringify(
            last.offers.map((o) =>
              rowToOffer(
                offerToRow(o, {
                  service_id,
                  domain,
                  snapshot_id: last.snapshot_id,
                  source_name: null,
                  observed_at: last.checked_at,
                  evidence_hash: last.evidence_hash,
                }),
              ),
            ),
          ),
        });
      }
      rows.intel_providers.push({
        domain,
        first_seen: new Date(start).toISOString(),
        last_seen: new Date(start + snapsPer * HOUR_MS).toISOString(),
      });
    }
    await insertIntelRows(store, rows);
    totals.providers += rows.intel_providers.length;
    totals.services += rows.intel_services.length;
    totals.snapshots += rows.intel_snapshots.length;
    totals.offers += rows.intel_offers.length;
    totals.changes += rows.intel_changes.length;
    opts.onProgress?.(totals.offers);
  }

  const end = new Date(start + snapsPer * HOUR_MS).toISOString();
  await insertSourceAndRun(
    store,
    {
      name: SEED_SOURCE,
      kind: 'bazaar',
      url: 'https://directory.bench/discovery/resources',
      last_attempt_at: end,
      last_success_at: end,
      last_error: null,
      item_count: totals.services,
      samples: JSON.stringify([{ method: 'GET', url: seedServiceUrl(0, 0), tool: null }]),
    },
    {
      started_at: new Date(start).toISOString(),
      finished_at: end,
      services: totals.services,
      snapshots: totals.snapshots,
      changes: totals.changes,
      error: null,
    },
  );
  return { ...totals, seconds: (performance.now() - t0) / 1000 };
}

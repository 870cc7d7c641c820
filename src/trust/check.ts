import { archiveEvidence } from '../intel/evidence.js';
import { uuidv7 } from '../intel/probe/snapshot-id.js';
import type { Offer } from '../domain/intel.js';
import type { Store } from '../store/db.js';
import { recordCheck, setCheckPayment } from '../store/trust/index.js';
import { assessTrust } from './assess.js';
import { gatherEvidence, type GatherOptions } from './gather.js';
import type { CheckPolicy, PolicyOutcome, Reason, Signals, Verdict } from './types.js';

/** The contract's disclaimers (section 1), included in every answer. */
export const DISCLAIMERS = [
  'Scores and verdicts describe the available evidence, not honesty or task success.',
  'Domain control does not prove wallet control.',
  'Offers are advertisements, not charges; a listing or endpoint response does not establish a completed purchase.',
  'Chain records are observations, not a complete feed: a missing record does not mean zero activity.',
  'This check never pays the target.',
] as const;

/** The answer of POST /v1/check (every member documented in GET /v1/openapi.json). */
export interface CheckAnswer {
  url: string;
  /** ISO 8601. */
  checked_at: string;
  verdict: Verdict;
  reasons: Reason[];
  /** Offers parsed from the live answer now. */
  offers: Offer[];
  provider: { domain: string; first_seen: string | null } | null;
  service: {
    service_id: string;
    first_seen: string | null;
    last_checked: string | null;
    checks_total: number | null;
    checks_healthy: number | null;
    sources: string[];
  } | null;
  signals: Signals;
  /** How the live offers meet the caller's policy; null when none was given. */
  policy: PolicyOutcome | null;
  /** Id of this check's snapshot (UUID v7) and the sha256 hex of the archived evidence (null when nothing was received). */
  snapshot_id: string;
  evidence_hash: string | null;
  disclaimers: readonly string[];
}

/** Who the check is for, recorded with it. */
export interface CheckPayer {
  keyId: string | null;
  payer: string | null;
}

/**
 * Runs a check of `url` and records it.
 * @param policy the caller's policy (validated by the route's schema), or null
 * @throws InvalidInput for a refused URL (nothing fetched); store errors (→ 503)
 */
export async function runCheck(
  url: string,
  o: GatherOptions,
  who: CheckPayer = { keyId: null, payer: null },
  policy: CheckPolicy | null = null,
): Promise<CheckAnswer> {
  const now = o.now ?? new Date();
  const { evidence, raw } = await gatherEvidence(url, { ...o, now });
  const assessed = assessTrust({ ...evidence, policy }, now);
  const { verdict, reasons, signals } = assessed;
  const archived = raw ? archiveEvidence(raw) : null;
  const li = evidence.listing;
  const answer: CheckAnswer = {
    url,
    checked_at: now.toISOString(),
    verdict,
    reasons,
    offers: evidence.offers,
    provider: li ? { domain: li.provider_domain, first_seen: li.first_seen } : null,
    service: li
      ? {
          service_id: li.service_id,
          first_seen: li.first_seen,
          last_checked: li.last_checked,
          checks_total: li.checks_total,
          checks_healthy: li.checks_healthy,
          sources: li.directory_sources,
        }
      : null,
    signals,
    policy: assessed.policy,
    snapshot_id: uuidv7(now.getTime()),
    evidence_hash: archived?.sha256 ?? null,
    disclaimers: DISCLAIMERS,
  };
  await recordCheck(o.store, {
    snapshot_id: answer.snapshot_id,
    url,
    checked_at: answer.checked_at,
    verdict,
    evidence_hash: answer.evidence_hash,
    key_id: who.keyId,
    payer: who.payer,
    payment_tx: null,
    answer: JSON.stringify(answer),
    evidence: archived?.bytes ?? null,
  });
  return answer;
}

/**
 * Records the x402 settlement of a per-call check with its row: the payer (lower-case, or null when the facilitator
 * named none) and the settlement's transaction hash.
 * @param snapshotId the check's snapshot id (CheckAnswer.snapshot_id)
 */
export async function recordCheckPayment(store: Store, snapshotId: string, payer: string | null, transaction: string): Promise<void> {
  await setCheckPayment(store, snapshotId, payer, transaction);
}

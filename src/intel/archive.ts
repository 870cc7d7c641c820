/**
 * The archive verification job: re-hashes stored evidence and compares it with the hashes snapshots cite
 * (docs/intelligence.md). All SQL stays in src/store/intel/.
 */
import { readEvidenceBatch, recordArchiveRun } from '../store/intel/index.js';
import type { Store } from '../store/db.js';
import { verifyEvidence } from './evidence.js';

/** The result of one archive verification pass. */
export interface ArchiveVerification {
  checked: number;
  verified: number;
  /** Snapshot ids whose stored bytes do not hash to the evidence hash their snapshot cites. */
  failed: string[];
}

/**
 * Re-hashes every archived evidence row and compares it with the evidence hash its snapshot cites (and with the
 * hash stored beside the bytes); records the pass in intel_archive_runs (shown by /api/intelligence/status).
 * @param batch rows read per query (default 500)
 */
export async function verifyArchive(store: Store, batch = 500): Promise<ArchiveVerification> {
  const started = new Date();
  const out: ArchiveVerification = { checked: 0, verified: 0, failed: [] };
  let after = '';
  for (;;) {
    const rows = await readEvidenceBatch(store, after, batch);
    if (!rows.length) break;
    for (const r of rows) {
      out.checked++;
      const ok = r.evidence_hash !== null && r.sha256 === r.evidence_hash && verifyEvidence(r.bytes, r.evidence_hash);
      if (ok) out.verified++;
      else out.failed.push(r.snapshot_id);
    }
    after = rows[rows.length - 1].snapshot_id;
  }
  await recordArchiveRun(store, { started_at: started, finished_at: new Date(), ...out });
  return out;
}

/**
 * Witnesses: independent operators' nodes (`--witness URL`, repeatable) asked, for a height paywatch certified,
 * their finalized head and their block hash there. They add testimony, never verification: a witness that
 * disagrees is evidence against that witness or of a fork, and never makes a verified certificate unverified
 * (./evidence.ts keeps the status from ./verify.ts alone). Pure: the caller reads the witnesses.
 */

/** What one witness answered for the height. */
export interface WitnessReport {
  /** The witness, as it may be shown: its URL without credentials, path or query (src/net/redact-url.ts). */
  witness: string;
  /** Its finalized head when asked; null when it did not answer. */
  finalizedHeight: number | null;
  /** Its block hash at the height; null when it did not answer or has no block there. */
  hash: string | null;
  /** Why it did not answer (transport, status, size cap, malformed body), shown without credentials; else absent. */
  error?: string | null;
}

/** The witnesses' verdict on one certified height (`evidence.finality.witnesses`). */
export interface WitnessSummary {
  /** Witnesses configured (asked). */
  configured: number;
  /** Agreeing witnesses wanted (`--witness-quorum`, default all configured). */
  quorum: number;
  /** Witnesses that call the height finalized and report paywatch's hash there. */
  agreeing: number;
  /** Witnesses that call the height finalized and report another hash there: an alarm. */
  disagreeing: number;
}

/** The summary, whether the quorum agreed, and each disagreement, for the alarm (log, `/api/status`, metrics). */
export interface WitnessComparison extends WitnessSummary {
  /** agreeing >= quorum, with at least one witness configured. */
  quorumMet: boolean;
  /** Witnesses that did not answer, or have not finalized the height yet (neither agreeing nor disagreeing). */
  pending: number;
  disagreements: { witness: string; height: number; reported: string; ours: string }[];
}

/**
 * Compares witnesses' answers with paywatch's block hash at a height.
 * @param ours the certified height and the hash paywatch recomputed there
 * @param quorum agreeing witnesses wanted; default all of them (clamped to 0..reports.length)
 * @example compareWitnesses({ height: 812, hash: '0xab…' }, [{ witness: 'https://w1.example', finalizedHeight: 900, hash: '0xab…' }])
 * // { configured: 1, quorum: 1, agreeing: 1, disagreeing: 0, quorumMet: true, pending: 0, disagreements: [] }
 */
export function compareWitnesses(
  ours: { height: number; hash: string },
  reports: readonly WitnessReport[],
  quorum?: number,
): WitnessComparison {
  const hash = ours.hash.toLowerCase();
  const wanted = Math.max(0, Math.min(reports.length, quorum ?? reports.length));
  let agreeing = 0;
  let pending = 0;
  const disagreements: WitnessComparison['disagreements'] = [];
  for (const r of reports) {
    const finalized = r.finalizedHeight !== null && Number.isSafeInteger(r.finalizedHeight) && r.finalizedHeight >= ours.height;
    if (!finalized || r.hash === null) pending++;
    else if (r.hash.toLowerCase() === hash) agreeing++;
    else disagreements.push({ witness: r.witness, height: ours.height, reported: r.hash.toLowerCase(), ours: hash });
  }
  return {
    configured: reports.length,
    quorum: wanted,
    agreeing,
    disagreeing: disagreements.length,
    quorumMet: reports.length > 0 && agreeing >= wanted,
    pending,
    disagreements,
  };
}

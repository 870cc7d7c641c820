/**
 * Evidence archive (docs/intelligence.md): the raw response of a probe or of a source (a directory page; status,
 * headers, body up to the cap)
 * serialised canonically, gzip-compressed, and identified by the sha256 of the compressed bytes, the
 * snapshot's `evidence_hash`. Verification re-hashes the stored bytes, so any edit to them is detected.
 *
 * Canonical serialisation (before compression), JSON with members in this order:
 * `{"v":1,"url":…,"status":…,"headers":[[name,value]… sorted by name],"truncated":…,"body_base64":…}`.
 * gzip output is deterministic here (Node's zlib writes no timestamp or file name), so the same response
 * always archives to the same bytes and hash.
 */
import { PaywatchError } from '../domain/errors.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { RawResponse } from '../domain/intel.js';
import { uuidv7 } from './probe/snapshot-id.js';

export interface ArchivedEvidence {
  /** gzip of the canonical serialisation. */
  bytes: Buffer;
  /** sha256 hex of `bytes`. */
  sha256: string;
}

/** sha256 hex of bytes. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Archives one raw response.
 * @returns the compressed canonical bytes and their sha256 (the evidence hash)
 */
export function archiveEvidence(r: RawResponse): ArchivedEvidence {
  const headers = Object.entries(r.headers)
    .map(([k, v]) => [k.toLowerCase(), v] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const canonical = JSON.stringify({
    v: 1,
    url: r.url,
    status: r.status,
    headers,
    truncated: r.truncated,
    body_base64: Buffer.from(r.body).toString('base64'),
  });
  const bytes = gzipSync(Buffer.from(canonical, 'utf8'), { level: 9 });
  return { bytes, sha256: sha256Hex(bytes) };
}

/** A source answer (a directory page) archived: the evidence its listed offers cite (stored by recordDirectoryOffers). */
export interface ArchivedSourceAnswer {
  /** UUID v7 at the answer's time, the `snapshot_id` its offers cite. */
  snapshot_id: string;
  source_name: string;
  /** The answer's final URL. */
  url: string;
  /** ISO 8601 time it was received. */
  fetched_at: string;
  http_status: number;
  evidence: { sha256: string; encoding: 'gzip'; bytes: Buffer };
}

/**
 * Archives a source's answer exactly as a probe's (archiveEvidence: status, headers, the body as received, at most
 * the source fetch cap), under a new snapshot id.
 * @param sourceName the configured source it came from
 * @param a the raw answer and when it was received (ISO 8601)
 */
export function archiveSourceAnswer(sourceName: string, a: { answer: RawResponse; fetched_at: string }): ArchivedSourceAnswer {
  const { bytes, sha256 } = archiveEvidence(a.answer);
  return {
    snapshot_id: uuidv7(Date.parse(a.fetched_at)),
    source_name: sourceName,
    url: a.answer.url,
    fetched_at: a.fetched_at,
    http_status: a.answer.status,
    evidence: { sha256, encoding: 'gzip', bytes },
  };
}

/**
 * True when `bytes` hash to `sha256` (hex, either case). Compared in constant time.
 */
export function verifyEvidence(bytes: Uint8Array, sha256: string): boolean {
  if (!/^[0-9a-fA-F]{64}$/.test(sha256)) return false;
  return timingSafeEqual(Buffer.from(sha256Hex(bytes), 'hex'), Buffer.from(sha256, 'hex'));
}

/**
 * Restores the raw response from archived bytes (for display and audits).
 * @throws Error when the bytes are not a paywatch evidence archive
 */
export function readEvidence(bytes: Uint8Array): RawResponse {
  const doc = JSON.parse(gunzipSync(bytes).toString('utf8')) as {
    v: number;
    url: string;
    status: number;
    headers: [string, string][];
    truncated: boolean;
    body_base64: string;
  };
  if (doc.v !== 1) throw new PaywatchError(`unknown evidence archive version ${String(doc.v)}`, { code: 'evidence_format' });
  return {
    url: doc.url,
    status: doc.status,
    headers: Object.fromEntries(doc.headers),
    truncated: doc.truncated,
    body: new Uint8Array(Buffer.from(doc.body_base64, 'base64')),
  };
}

/**
 * MPP attribution memos: the bytes32 memo mppx writes on a TIP-20 `transferWithMemo` when it pays an MPP charge
 * (source: mppx 0.11.0 `src/tempo/Attribution.ts`, `dist/tempo/Attribution.js`; mppx does not export it, so the
 * layout is decoded here). Layout, 32 bytes:
 *
 * | bytes | member |
 * |---|---|
 * | 0..3 | tag: keccak256("mpp")[0..3] = 0xef1ed712 |
 * | 4 | version: 0x01 |
 * | 5..14 | server fingerprint: keccak256(serverId)[0..9]; mppx clients pass the challenge's `realm` as serverId |
 * | 15..24 | client fingerprint: keccak256(clientId)[0..9], or ten zero bytes for an anonymous client |
 * | 25..31 | nonce: keccak256(challengeId)[0..6] |
 *
 * Anyone can write any memo: a fingerprint says which realm the payer's software named, never who was paid.
 * In domain/ so the store's payment matcher (src/payments) reads memos without depending on the chain area.
 */
// ox's modules one by one, not viem: viem's index is ~340 modules, and the store's writer thread loads this file.
import * as Bytes from 'ox/Bytes';
import * as Hash from 'ox/Hash';

/** keccak256("mpp")[0..3] and the version byte (src/chain/decode/constants.ts MPP_TAG, MPP_VERSION). */
const MPP_TAG = Hash.keccak256(Bytes.fromString('mpp'), { as: 'Hex' }).slice(0, 10);
const MPP_VERSION = '01';

/** A decoded MPP attribution memo; fingerprints and nonce are lower-case 0x hex. */
export interface MppAttribution {
  /** Memo layout version (1). */
  version: number;
  /** keccak256(serverId)[0..9]: 10 bytes, 0x + 20 hex digits. */
  server_fingerprint: string;
  /** keccak256(clientId)[0..9], or null when the ten bytes are zero (an anonymous client). */
  client_fingerprint: string | null;
  /** keccak256(challengeId)[0..6]: 7 bytes, 0x + 14 hex digits. */
  nonce: string;
}

const MEMO = /^0x[0-9a-fA-F]{64}$/;
const PREFIX = `${MPP_TAG}${MPP_VERSION}`.toLowerCase();
const ANONYMOUS = '0'.repeat(20);

/**
 * Decodes an MPP attribution memo; pure, and reads nothing beyond the 66 characters of a bytes32.
 * @param memo a TIP-20 memo (0x + 64 hex digits, any case); anything else is not an attribution
 * @returns the members, or null when `memo` is not a bytes32 starting with the MPP tag and version 0x01
 * @example
 * decodeMppAttribution('0xef1ed71201c62939e7f7496e1106ef00000000000000000000a166aee7e294f6')
 * // { version: 1, server_fingerprint: '0xc62939e7f7496e1106ef', client_fingerprint: null, nonce: '0xa166aee7e294f6' }
 */
export function decodeMppAttribution(memo: unknown): MppAttribution | null {
  if (typeof memo !== 'string' || memo.length !== 66 || !MEMO.test(memo)) return null;
  const m = memo.toLowerCase();
  if (!m.startsWith(PREFIX)) return null;
  const client = m.slice(32, 52);
  return {
    version: Number.parseInt(m.slice(10, 12), 16),
    server_fingerprint: `0x${m.slice(12, 32)}`,
    client_fingerprint: client === ANONYMOUS ? null : `0x${client}`,
    nonce: `0x${m.slice(52)}`,
  };
}

/**
 * The 10-byte fingerprint mppx puts in a memo for an id: keccak256 of its UTF-8 bytes, first 10 bytes. For a
 * service, `id` is the realm of its MPP challenge (what mppx clients pass as serverId), so matching a memo's
 * `server_fingerprint` against mppFingerprint(realm) of every realm seen names the candidate services.
 * @param id a realm (server) or client id, as the challenge or client gave it (not trimmed or case-folded)
 * @returns lower-case 0x + 20 hex digits
 * @example mppFingerprint('api.example.com') // '0x…' (20 hex digits), equal to the memo's bytes 5..14
 */
export function mppFingerprint(id: string): string {
  return Hash.keccak256(Bytes.fromString(id), { as: 'Hex' }).slice(0, 22);
}

/**
 * Tempo's `OnchainDkgOutcome`: the outcome of a DKG ceremony as written to the chain, in the genesis block's
 * `extraData` (epoch 0) and in the `extraData` of every epoch's last block (the next epoch's outcome). Layout
 * (tempoxyz/tempo `crates/dkg-onchain-artifacts/src/lib.rs`; commonwarexyz/monorepo
 * `cryptography/src/bls12381/dkg/feldman_desmedt.rs` `Output`, `primitives/sharing.rs` `Sharing`,
 * `math/src/poly.rs` `Poly`, `utils/src/ordered.rs` `Set`, codec in ./codec.ts):
 *
 *   varint(epoch) || summary[32] || mode u8 || total u32be || varint(n) || n × G2[96]
 *     || dealers || players || revealed || next_players || is_next_full_dkg u8
 *
 * where each key set is varint(count) || count × ed25519 key[32], sorted and unique. The polynomial's first
 * coefficient is the group key that verifies the epoch's certificates (`Sharing::public` = `poly.constant()`):
 * the network identity. Limits as Tempo reads it: at most 65,535 validators (`MAX_VALIDATORS = u16::MAX`), mode 0
 * only (`ModeVersion::v0`), 1–65,535 coefficients and participants, at least one dealer, player and next player.
 *
 * Like Tempo's reader (`OnchainDkgOutcome::read`, which every caller there uses on `extraData`), bytes after the
 * outcome are not an error; their count is returned.
 */
import { shortMessage } from '../../domain/errors.js';
import * as Ed25519 from 'ox/Ed25519';
import { parseGroupKey } from './bls.js';
import { ByteReader, bytesOf, hexOf } from './codec.js';
import { ConsensusDecodeError } from './errors.js';

/** At most this many validators (tempoxyz/tempo `crates/dkg-onchain-artifacts/src/lib.rs`). */
export const MAX_VALIDATORS = 65_535;
/** Largest `extraData` read as an outcome, bytes (a 2,000-validator outcome is about 300 kB). */
export const DKG_OUTCOME_MAX_BYTES = 1 << 20;

/** A decoded `OnchainDkgOutcome`. Byte strings are 0x lower-case hex. */
export interface DkgOutcome {
  /** The epoch whose certificates this outcome's group key verifies. */
  epoch: number;
  /** The DKG transcript's summary (a blake3 hash). */
  summary: `0x${string}`;
  /** The sharing's mode (0: non-zero counter, the only one Tempo reads). */
  mode: number;
  /** The number of participants holding a share. */
  total: number;
  /** The public polynomial's coefficients, compressed G2 (96 bytes each). */
  polynomial: `0x${string}`[];
  /** The group key (network identity): the polynomial's first coefficient. */
  groupKey: `0x${string}`;
  /** Ed25519 keys (32 bytes each). */
  dealers: `0x${string}`[];
  players: `0x${string}`[];
  revealed: `0x${string}`[];
  nextPlayers: `0x${string}`[];
  /** Whether the next ceremony is a full DKG (a new group key) rather than a reshare (the same key). */
  isNextFullDkg: boolean;
  /** Bytes after the outcome, ignored as Tempo's reader ignores them. */
  trailingBytes: number;
}

/** @noble/curves' Ed25519 point decoding with its ZIP-215 flag (declared in its JavaScript, not its types). */
const decodeEd25519 = Ed25519.noble.ExtendedPoint.fromHex as (this: unknown, bytes: Uint8Array, zip215: boolean) => unknown;

/** A sorted, unique set of Ed25519 keys, each a valid point encoding (ZIP-215, as ed25519-consensus accepts). */
function keySet(r: ByteReader, name: string, min: number): `0x${string}`[] {
  const n = r.length(name, min, MAX_VALIDATORS);
  const out: `0x${string}`[] = [];
  let previous: Uint8Array | null = null;
  for (let i = 0; i < n; i++) {
    const at = r.offset;
    const key = r.take(32, `${name} key ${i}`);
    if (previous !== null && Buffer.compare(previous, key) >= 0)
      throw new ConsensusDecodeError('dkg outcome', `has ${name} that are not sorted and unique`, at);
    try {
      decodeEd25519.call(Ed25519.noble.ExtendedPoint, key, true);
    } catch {
      throw new ConsensusDecodeError('dkg outcome', `has ${name} key ${i} that is not an Ed25519 point`, at);
    }
    previous = key;
    out.push(hexOf(key));
  }
  return out;
}

/**
 * Decodes an `OnchainDkgOutcome` (see the module comment) and checks every polynomial coefficient is a valid G2
 * point.
 * @param input the block's `extraData`: 0x hex or bytes
 * @example parseDkgOutcome(MAINNET_GENESIS_OUTCOME).groupKey // '0xa217bb85…' (mainnet's network identity)
 * @throws ConsensusDecodeError naming what is missing or malformed
 */
export function parseDkgOutcome(input: string | Uint8Array): DkgOutcome {
  const r = new ByteReader(bytesOf(input, 'dkg outcome', DKG_OUTCOME_MAX_BYTES), 'dkg outcome');
  const epoch = r.varint('epoch');
  const summary = hexOf(r.take(32, 'summary'));
  const modeAt = r.offset;
  const mode = r.u8('mode');
  if (mode !== 0) throw new ConsensusDecodeError('dkg outcome', `has sharing mode ${mode}; Tempo reads only mode 0`, modeAt);
  const totalAt = r.offset;
  const total = r.u32be('total');
  if (total < 1 || total > MAX_VALIDATORS)
    throw new ConsensusDecodeError('dkg outcome', `has ${total} participants, outside 1..${MAX_VALIDATORS}`, totalAt);
  const n = r.length('polynomial coefficients', 1, MAX_VALIDATORS);
  const polynomial: `0x${string}`[] = [];
  for (let i = 0; i < n; i++) {
    const at = r.offset;
    const coefficient = r.take(96, `polynomial coefficient ${i}`);
    try {
      polynomial.push(parseGroupKey(coefficient).hex);
    } catch (e) {
      throw new ConsensusDecodeError(
        'dkg outcome',
        `has polynomial coefficient ${i} that ${shortMessage(e).replace(/^group key /, '')}`,
        at,
      );
    }
  }
  const dealers = keySet(r, 'dealers', 1);
  const players = keySet(r, 'players', 1);
  const revealed = keySet(r, 'revealed', 0);
  const nextPlayers = keySet(r, 'next players', 1);
  const isNextFullDkg = r.bool('is_next_full_dkg');
  return {
    epoch,
    summary,
    mode,
    total,
    polynomial,
    groupKey: polynomial[0]!,
    dealers,
    players,
    revealed,
    nextPlayers,
    isNextFullDkg,
    trailingBytes: r.remaining,
  };
}

/**
 * Test kit for finality verification (src/chain/consensus): a generated BLS group key that signs Tempo-format
 * finalization certificates (ox's `Bls`), DKG outcomes planting that key (a test genesis outcome, a boundary
 * outcome announcing a next key), the generated vectors and mainnet identity of `../shared/consensus`, and a
 * Tempo header RLP read as a JSON-RPC block. The loopback consensus node is in ./consensus-rpc.ts.
 *
 * One test key stands for a whole committee: a threshold signature recovered from a quorum of shares is the
 * group secret's signature, so signing with the group secret gives the same bytes.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as Bls from 'ox/Bls';
import * as BlsPoint from 'ox/BlsPoint';
import * as Ed25519 from 'ox/Ed25519';
import * as Rlp from 'ox/Rlp';
import { varint } from '../../src/chain/consensus/codec.js';
import { FINALIZE_NAMESPACE, MINSIG_DST, SEED_NAMESPACE, signedMessage } from '../../src/chain/consensus/index.js';
import type { RpcBlock } from '../../src/chain/types.js';

type Hex = `0x${string}`;

/** The folder of consensus test data: `../shared/consensus` from the repository root (never copied into it). */
export const CONSENSUS_DIR = new URL('../../../shared/consensus/', import.meta.url);

/** Parses one file of `../shared/consensus`. */
export function readConsensusData<T = unknown>(file: string): T {
  return JSON.parse(readFileSync(new URL(file, CONSENSUS_DIR), 'utf8')) as T;
}

/** `generated-committee-vectors.json`: certificates of a local 3-of-4 committee (see that folder's README). */
export interface CommitteeVectors {
  dkgOutcome: Hex;
  epoch0KeyCompressed: Hex;
  epoch1KeyCompressed: Hex;
  epochLength: number;
  namespace: Hex;
  updates: { epoch: number; height: number; view: number; parentView: number; headerHash: Hex; headerRlp?: Hex; tempoCertificate: Hex }[];
}

/** The generated vectors. */
export function committeeVectors(): CommitteeVectors {
  return readConsensusData<CommitteeVectors>('generated-committee-vectors.json');
}

/** `mainnet-4217-identity.json`. */
export interface MainnetIdentity {
  chainId: number;
  epochLength: number;
  genesisExtraData: Hex;
  networkIdentity: { fromEpoch: number; key: Hex };
}

/** Mainnet's recorded genesis outcome and identity. */
export function mainnetIdentity(): MainnetIdentity {
  return readConsensusData<MainnetIdentity>('mainnet-4217-identity.json');
}

/** A generated group key: its secret scalar and its public key (compressed G2, 96 bytes). */
export interface TestKey {
  secret: Hex;
  groupKey: Hex;
}

/**
 * A deterministic test group key: the secret is sha256(label) reduced into the scalar field.
 * @example testKey('epoch 0').groupKey // '0x…' (96 bytes)
 */
export function testKey(label: string): TestKey {
  const r = Bls.noble.params.r;
  const n = (BigInt(`0x${createHash('sha256').update(label).digest('hex')}`) % (r - 1n)) + 1n;
  const secret = `0x${n.toString(16).padStart(64, '0')}` as Hex;
  return { secret, groupKey: BlsPoint.toHex(Bls.getPublicKey({ privateKey: secret, size: 'long-key:short-sig' })) as Hex };
}

/** What a test certificate states, and how to sign it (defaults: Tempo's finalize namespace and MinSig DST). */
export interface CertificateSpec {
  key: TestKey;
  epoch: number;
  view: number;
  parentView: number;
  /** The certified block hash. */
  payload: string;
  /** The vote's namespace: FINALIZE_NAMESPACE unless a test signs a notarization. */
  namespace?: string;
  /** The hash-to-curve DST; undefined (the library's default) when `dst` is null. */
  dst?: string | null;
  /** Signs the seed with another key (a certificate whose seed alone is wrong). */
  seedKey?: TestKey;
}

/** A MinSig signature (G1, compressed) of the namespaced message. */
function sign(key: TestKey, namespace: string, message: Uint8Array, dst: string | null): Uint8Array {
  const signature = Bls.sign({
    payload: signedMessage(namespace, message),
    privateKey: key.secret,
    size: 'long-key:short-sig',
    ...(dst === null ? {} : { suite: dst }),
  });
  return BlsPoint.toBytes(signature);
}

/**
 * A finalization certificate in Tempo's format: proposal || vote signature || seed signature
 * (src/chain/consensus/certificate.ts).
 * @returns 0x hex
 */
export function signFinalization(spec: CertificateSpec): Hex {
  const round = Buffer.concat([varint(spec.epoch), varint(spec.view)]);
  const payload = Buffer.from(spec.payload.replace(/^0x/, ''), 'hex');
  if (payload.length !== 32) throw new Error('payload must be 32 bytes');
  const proposal = Buffer.concat([round, varint(spec.parentView), payload]);
  const dst = spec.dst === undefined ? MINSIG_DST : spec.dst;
  const vote = sign(spec.key, spec.namespace ?? FINALIZE_NAMESPACE, proposal, dst);
  const seed = sign(spec.seedKey ?? spec.key, SEED_NAMESPACE, round, dst);
  return `0x${Buffer.concat([proposal, vote, seed]).toString('hex')}`;
}

/** Deterministic Ed25519 validator keys, sorted (a DKG outcome's key sets must be). */
export function validatorKeys(n: number, label = 'validator'): Hex[] {
  return Array.from({ length: n }, (_, i) => {
    const seed = `0x${createHash('sha256').update(`${label} ${i}`).digest('hex')}` as Hex;
    return Ed25519.getPublicKey({ privateKey: seed }) as Hex;
  }).sort();
}

/** What a test DKG outcome holds (src/chain/consensus/dkg-outcome.ts). */
export interface OutcomeSpec {
  epoch: number;
  /** The group key (the polynomial's first coefficient). */
  groupKey: Hex;
  /** More coefficients after it (compressed G2); default two derived points, as a 3-of-4 committee has. */
  coefficients?: Hex[];
  /** Dealers, players and next players (sorted Ed25519 keys); default four. */
  players?: Hex[];
  isNextFullDkg?: boolean;
}

/**
 * Encodes an `OnchainDkgOutcome` (the inverse of parseDkgOutcome): a genesis `extraData` for epoch 0, or a
 * boundary block's for the next epoch.
 * @returns 0x hex
 */
export function encodeDkgOutcome(spec: OutcomeSpec): Hex {
  const players = spec.players ?? validatorKeys(4);
  const coefficients = spec.coefficients ?? [testKey(`${spec.groupKey} c1`).groupKey, testKey(`${spec.groupKey} c2`).groupKey];
  const poly = [spec.groupKey, ...coefficients];
  const total = Buffer.alloc(4);
  total.writeUInt32BE(players.length);
  const set = (keys: Hex[]) => Buffer.concat([varint(keys.length), ...keys.map((k) => Buffer.from(k.slice(2), 'hex'))]);
  const bytes = Buffer.concat([
    varint(spec.epoch),
    createHash('sha256').update(`summary ${spec.epoch}`).digest(),
    Buffer.from([0]),
    total,
    varint(poly.length),
    ...poly.map((k) => Buffer.from(k.slice(2), 'hex')),
    set(players),
    set(players),
    set([]),
    set(players),
    Buffer.from([spec.isNextFullDkg ? 1 : 0]),
  ]);
  return `0x${bytes.toString('hex')}`;
}

/** A test genesis `extraData` planting `key`'s identity at epoch 0 (what `--consensus-genesis` takes). */
export function testGenesisOutcome(key: TestKey): Hex {
  return encodeDkgOutcome({ epoch: 0, groupKey: key.groupKey });
}

/** A boundary block's `extraData` announcing `next` as epoch `epoch`'s group key (a full DKG). */
export function boundaryOutcome(epoch: number, next: TestKey): Hex {
  return encodeDkgOutcome({ epoch, groupKey: next.groupKey });
}

/** Ethereum header members in RLP order (src/chain/integrity/header.ts), with whether each is a quantity. */
const HEADER_MEMBERS: [string, boolean][] = [
  ['parentHash', false],
  ['sha3Uncles', false],
  ['miner', false],
  ['stateRoot', false],
  ['transactionsRoot', false],
  ['receiptsRoot', false],
  ['logsBloom', false],
  ['difficulty', true],
  ['number', true],
  ['gasLimit', true],
  ['gasUsed', true],
  ['timestamp', true],
  ['extraData', false],
  ['mixHash', false],
  ['nonce', false],
  ['baseFeePerGas', true],
  ['withdrawalsRoot', false],
  ['blobGasUsed', true],
  ['excessBlobGas', true],
  ['parentBeaconBlockRoot', false],
  ['requestsHash', false],
];

/** An RLP integer as a JSON-RPC quantity ('0x' → '0x0'). */
const quantity = (h: string) => `0x${BigInt(h === '0x' ? 0 : h).toString(16)}`;

/**
 * A Tempo header's RLP (`rlp([generalGasLimit, sharedGasLimit, timestampMillisPart, ethereumHeader,
 * consensusContext?])`) as the JSON-RPC block a node would serve for it, `hash` as stated: what the integrity
 * stage 2 check (checkBlockHash) and readConsensusContext read. No transactions.
 */
export function rpcBlockFromHeaderRlp(rlp: Hex, hash: Hex): RpcBlock {
  const [general, shared, millis, inner, context] = Rlp.toHex(rlp) as [Hex, Hex, Hex, Hex[], Hex[] | undefined];
  const block: Record<string, unknown> = {
    hash,
    mainBlockGeneralGasLimit: quantity(general),
    sharedGasLimit: quantity(shared),
    timestampMillisPart: quantity(millis),
    transactions: [],
  };
  inner.forEach((v, i) => {
    const [name, isQuantity] = HEADER_MEMBERS[i]!;
    block[name] = isQuantity ? quantity(v) : v;
  });
  if (context) {
    const [epoch, view, parentView, proposer] = context as [Hex, Hex, Hex, Hex];
    block.consensusContext = {
      epoch: Number(quantity(epoch)),
      view: Number(quantity(view)),
      parentView: Number(quantity(parentView)),
      proposer,
    };
  }
  return block as RpcBlock;
}

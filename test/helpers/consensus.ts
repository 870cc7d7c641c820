/**
 * Test kit for finality verification (src/chain/consensus): a generated BLS group key that signs Tempo-format
 * finalization certificates (ox's `Bls`), DKG outcomes planting that key (a test genesis outcome, a boundary
 * outcome announcing a next key), the generated vectors of `../shared/consensus`, a JSON-RPC request function
 * over fetch (what the project's RPC client does for the integrator), and a real loopback JSON-RPC node that
 * serves `consensus_getFinalization` / `consensus_getLatest` and forwards every other call to an upstream node
 * (anvil), with certificates signed over the upstream's own blocks.
 *
 * One test key stands for a whole committee: a threshold signature recovered from a quorum of shares is the
 * group secret's signature, so signing with the group secret gives the same bytes.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Bls, BlsPoint, Ed25519, Rlp } from 'ox';
import { varint } from '../../src/chain/consensus/codec.js';
import { epochOf, FINALIZE_NAMESPACE, MINSIG_DST, SEED_NAMESPACE, signedMessage } from '../../src/chain/consensus/index.js';
import type { ConsensusRequest } from '../../src/chain/consensus/index.js';
import type { RpcBlock } from '../../src/chain/types.js';
import { readBody } from './rpc-proxy.js';

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

/** A JSON-RPC error answer, as a request function rejects with it (code as `rpcCode`, as src/chain/rpc.ts does). */
export class TestRpcError extends Error {
  constructor(
    readonly rpcCode: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A ConsensusRequest over fetch: what the integrator's RPC client provides. It honours the signal and refuses a
 * body of more than `maxBytes` while reading it.
 */
export function fetchRequest(url: string): ConsensusRequest {
  let id = 0;
  return async (method, params, { signal, maxBytes }) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      signal,
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > maxBytes) throw new Error(`answer larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { result?: unknown; error?: { code: number; message: string } };
    if (body.error) throw new TestRpcError(body.error.code, body.error.message);
    return body.result;
  };
}

/** A Tempo `CertifiedBlock` as `consensus_getFinalization` serves it (crates/node/src/rpc/consensus/types.rs). */
export interface CertifiedBlockJson {
  epoch: number;
  view: number;
  digest: string;
  /** Hex without 0x, as the node serves it. */
  certificate: string;
  block: { header: Record<string, unknown>; body: { transactions: unknown[]; ommers: unknown[]; withdrawals: unknown } };
}

/**
 * The CertifiedBlock of a node's block: its header members (without `hash`) and its transactions as the body.
 * @param certificate 0x hex (served without the prefix)
 */
export function certifiedBlockJson(block: RpcBlock, certificate: string, round: { epoch: number; view: number }): CertifiedBlockJson {
  const { hash, transactions, uncles: _u, withdrawals, size: _s, totalDifficulty: _t, ...header } = block;
  return {
    epoch: round.epoch,
    view: round.view,
    digest: hash,
    certificate: certificate.replace(/^0x/, ''),
    block: { header, body: { transactions, ommers: [], withdrawals: withdrawals ?? null } },
  };
}

/** Which certificate the loopback node serves for a query: a CertifiedBlock, or null for "nothing stored". */
export type FinalizationSource = (query: 'latest' | { height: number }) => CertifiedBlockJson | null | Promise<CertifiedBlockJson | null>;

export interface ConsensusRpcOptions {
  /** The node every other method is forwarded to (anvil); without it they answer -32601. */
  upstream?: string;
  /** Serves `consensus_getFinalization` and `consensus_getLatest`'s `finalized`. */
  finalization?: FinalizationSource;
  /** Answer every `consensus_*` call with -32601, as shared RPC services do. */
  unsupported?: boolean;
  /** Hold `consensus_*` calls unanswered (a node that hangs), until close. */
  hang?: boolean;
}

export interface ConsensusRpc {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Every call received, in order (method and params). */
  calls: { method: string; params: unknown[] }[];
  close(): Promise<void>;
}

interface Call {
  jsonrpc?: string;
  id: unknown;
  method: string;
  params?: unknown[];
}

const METHOD_NOT_FOUND = -32601;

/**
 * Starts a loopback JSON-RPC node on a free port: `consensus_getFinalization` (params `["latest"]` or
 * `[{"height": N}]`) and `consensus_getLatest` from `finalization` (nothing there: Tempo's error 503), every other
 * method forwarded to `upstream`. Single calls and batches work.
 */
export async function startConsensusRpc(opts: ConsensusRpcOptions): Promise<ConsensusRpc> {
  const calls: ConsensusRpc['calls'] = [];
  let forwardId = 0;
  const forward = async (c: Call): Promise<unknown> => {
    if (!opts.upstream)
      return {
        jsonrpc: '2.0',
        id: c.id,
        error: { code: METHOD_NOT_FOUND, message: `the method ${c.method} does not exist/is not available` },
      };
    const res = await fetch(opts.upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++forwardId, method: c.method, params: c.params ?? [] }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    return { ...body, id: c.id };
  };
  const consensus = async (c: Call): Promise<unknown> => {
    const ok = (result: unknown) => ({ jsonrpc: '2.0', id: c.id, result });
    const missing = {
      jsonrpc: '2.0',
      id: c.id,
      error: {
        code: 503,
        message: 'the consensus subservice was not available, but the request can be retried later',
        data: 'certificate',
      },
    };
    if (opts.unsupported || !opts.finalization)
      return {
        jsonrpc: '2.0',
        id: c.id,
        error: { code: METHOD_NOT_FOUND, message: `the method ${c.method} does not exist/is not available` },
      };
    if (c.method === 'consensus_getLatest') return ok({ finalized: await opts.finalization('latest'), notarized: null });
    if (c.method !== 'consensus_getFinalization')
      return { jsonrpc: '2.0', id: c.id, error: { code: METHOD_NOT_FOUND, message: `the method ${c.method} does not exist` } };
    const q = c.params?.[0];
    const query =
      q === 'latest'
        ? 'latest'
        : typeof q === 'object' && q !== null && typeof (q as { height?: unknown }).height === 'number'
          ? { height: (q as { height: number }).height }
          : null;
    if (query === null) return { jsonrpc: '2.0', id: c.id, error: { code: -32602, message: 'invalid params' } };
    const found = await opts.finalization(query);
    return found === null ? missing : ok(found);
  };
  const answer = (c: Call): Promise<unknown> => {
    calls.push({ method: c.method, params: c.params ?? [] });
    return c.method.startsWith('consensus_') ? consensus(c) : forward(c);
  };
  const hanging = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    (async () => {
      const parsed = JSON.parse(await readBody(req)) as Call | Call[];
      const list = Array.isArray(parsed) ? parsed : [parsed];
      if (opts.hang && list.some((c) => c.method.startsWith('consensus_'))) {
        list.forEach((c) => calls.push({ method: c.method, params: c.params ?? [] }));
        await new Promise<void>((r) => hanging.add(r));
        return;
      }
      const answers = await Promise.all(list.map(answer));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
    })().catch((e) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(String(e));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((r) => {
        for (const release of hanging) release();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** How certifyUpstream signs: the key per epoch, and optional tampering for negative cases. */
export interface CertifierOptions {
  /** The node whose blocks are certified (anvil). */
  upstream: string;
  /** Blocks per epoch. */
  epochLength: number;
  /** The key that signs an epoch's certificates. */
  keyFor: (epoch: number) => TestKey;
  /** Rewrites a certificate's stated payload (a certificate over another block). */
  payloadFor?: (height: number, hash: string) => string;
}

/**
 * A FinalizationSource that certifies the upstream node's own blocks: for a height it reads the block and signs
 * epoch = height / epochLength, view = height + 1, parent view = height over its hash; "latest" is the
 * upstream's finalized head. A height above that head has no certificate (null).
 */
export function certifyUpstream(opts: CertifierOptions): FinalizationSource {
  let id = 0;
  const block = async (tag: string): Promise<RpcBlock | null> => {
    const res = await fetch(opts.upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'eth_getBlockByNumber', params: [tag, true] }),
    });
    return ((await res.json()) as { result: RpcBlock | null }).result;
  };
  return async (query) => {
    const finalized = await block('finalized');
    if (finalized === null) return null;
    const head = Number(BigInt(finalized.number));
    const height = query === 'latest' ? head : query.height;
    if (height > head) return null;
    const b = query === 'latest' ? finalized : await block(`0x${height.toString(16)}`);
    if (b === null) return null;
    const epoch = epochOf(height, opts.epochLength);
    const view = height + 1;
    const payload = opts.payloadFor ? opts.payloadFor(height, b.hash) : b.hash;
    const certificate = signFinalization({ key: opts.keyFor(epoch), epoch, view, parentView: height, payload });
    return certifiedBlockJson(b, certificate, { epoch, view });
  };
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

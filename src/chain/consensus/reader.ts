/**
 * Reads finalization certificates from a node's `consensus_*` JSON-RPC namespace (tempoxyz/tempo
 * `crates/node/src/rpc/consensus/mod.rs` and `types.rs`):
 * - `consensus_getFinalization(query)`, query `"latest"` or `{"height": N}`, answers a CertifiedBlock
 *   `{epoch, view, digest, certificate, block}`: `certificate` is hex without 0x (`hex::encode`), `block` is
 *   `{header, body}` (the Tempo header's own JSON, without its hash; the body with every transaction);
 *   errors: code 204 "not available" (not ready yet) and 503 with data "certificate"/"block"/"certifications"
 *   (nothing stored for that height);
 * - `consensus_getLatest()` answers `{finalized: CertifiedBlock | null, notarized: null}`: only `finalized` is
 *   read (a notarization is never finality);
 * - `consensus_subscribe` (a WebSocket subscription) is not used.
 * Validators and certified followers register the namespace; shared RPC services mostly answer "method not
 * found" (docs/integrity.md).
 *
 * The caller supplies the transport (`ConsensusRequest`: the project's RPC client), so retries, credentials and
 * connection reuse stay in one place. Every read here has a time budget and a size cap and never throws: it
 * resolves to what happened, and a node without the namespace is `unsupported`, which leaves finality unknown.
 */
import { CERTIFICATE_MAX_BYTES } from './certificate.js';

/** What a request must honour: stop when `signal` aborts, refuse an answer of more than `maxBytes`. */
export interface RequestLimits {
  signal: AbortSignal;
  maxBytes: number;
}

/**
 * Sends one JSON-RPC call and resolves with its `result`. For a JSON-RPC error answer it rejects with an error
 * carrying the error's code as `rpcCode` (as src/chain/rpc.ts `RpcCallError` does) or as a numeric `code`;
 * for anything else (transport, HTTP status, malformed JSON, too large) it rejects with any error.
 */
export type ConsensusRequest = (method: string, params: unknown[], limits: RequestLimits) => Promise<unknown>;

/** Which certificate: the newest, or the one at a height. */
export type FinalizationQuery = 'latest' | { height: number };

/** A certified block as served, its members checked for shape only (./verify.ts judges them). */
export interface CertifiedBlock {
  /** The block's height (`block.header.number`). */
  height: number;
  epoch: number;
  view: number;
  /** The certified block hash as the node states it, 0x lower-case hex. */
  digest: `0x${string}`;
  /** The finalization certificate, 0x lower-case hex. */
  certificate: `0x${string}`;
  /** The block's header as served (Tempo's JSON: no `hash`); the body is dropped. */
  header: Record<string, unknown>;
}

/** How a read ended. */
export type FinalizationAnswer =
  | { kind: 'certified'; block: CertifiedBlock }
  /** The node has no `consensus_*` namespace: finality stays unknown; asking again later is pointless. */
  | { kind: 'unsupported'; reason: string }
  /** The node has no certificate there (yet): ask again later. */
  | { kind: 'missing'; reason: string }
  /** Timeout, transport failure, malformed or oversized answer. */
  | { kind: 'failed'; reason: string };

/** Budgets of one read. */
export interface ReadOptions {
  /** Milliseconds before the read is abandoned (default 5,000). */
  timeoutMs?: number;
  /** Largest answer accepted, bytes (default 32 MiB: the body carries every transaction of the block). */
  maxBytes?: number;
}

/** Default budgets. */
export const CONSENSUS_READ_DEFAULTS = { timeoutMs: 5_000, maxBytes: 32 * 1024 * 1024 } as const;

/** JSON-RPC codes meaning "no such method" (EIP-1474 -32601, -32004 "method not supported"). */
const UNSUPPORTED_CODES = new Set([-32601, -32004]);
/** Tempo's consensus RPC codes: 204 not ready, 503 nothing stored (crates/node/src/rpc/consensus/mod.rs `ErrorCode`). */
const MISSING_CODES = new Set([204, 503]);
/** How services word a missing method when their code says otherwise. */
const UNSUPPORTED_TEXT =
  /method .*(not found|does not exist|not available|not supported|is not whitelisted)|unsupported method|unknown method/i;

/** The JSON-RPC code an error carries (`rpcCode`, or a numeric `code`), else null. */
function rpcCodeOf(e: unknown): number | null {
  if (typeof e !== 'object' || e === null) return null;
  const o = e as { rpcCode?: unknown; code?: unknown };
  if (typeof o.rpcCode === 'number') return o.rpcCode;
  if (typeof o.code === 'number') return o.code;
  return null;
}

/** One line of an error's message, at most 200 characters (answers are outside data). */
function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return (m.split('\n')[0] ?? '').slice(0, 200);
}

/** Maps a rejected request to the answer kind. */
function classify(method: string, e: unknown): FinalizationAnswer {
  const code = rpcCodeOf(e);
  const text = firstLine(e);
  if ((code !== null && UNSUPPORTED_CODES.has(code)) || UNSUPPORTED_TEXT.test(text))
    return { kind: 'unsupported', reason: `the node does not serve ${method} (${text})` };
  if (code !== null && MISSING_CODES.has(code)) return { kind: 'missing', reason: `the node has no certificate there yet (${text})` };
  return { kind: 'failed', reason: `${method} failed: ${text}` };
}

const HEX32 = /^0x[0-9a-fA-F]{64}$/;
const HEX = /^(0x)?[0-9a-fA-F]*$/;

/** A non-negative safe integer, else null. */
function count(v: unknown): number | null {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null;
}

/**
 * Checks a CertifiedBlock's shape.
 * @returns the block, or the reason it is not one
 */
function certifiedBlock(v: unknown): CertifiedBlock | string {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'the answer is not an object';
  const o = v as Record<string, unknown>;
  const epoch = count(o.epoch);
  const view = count(o.view);
  if (epoch === null || view === null) return 'the answer has no integer epoch and view';
  if (typeof o.digest !== 'string' || !HEX32.test(o.digest)) return 'the answer has no 32-byte digest';
  const cert = o.certificate;
  if (typeof cert !== 'string' || !HEX.test(cert) || cert.length > 2 * CERTIFICATE_MAX_BYTES + 2)
    return 'the answer has no certificate of at most 158 bytes of hex';
  const block = o.block as { header?: unknown } | null | undefined;
  const header = block?.header;
  if (typeof header !== 'object' || header === null || Array.isArray(header)) return 'the answer has no block header';
  const number = (header as Record<string, unknown>).number;
  const height = typeof number === 'string' && /^0x[0-9a-fA-F]{1,13}$/.test(number) ? Number.parseInt(number, 16) : null;
  if (height === null || !Number.isSafeInteger(height)) return 'the answer has no block number';
  const bare = cert.startsWith('0x') ? cert.slice(2) : cert;
  return {
    height,
    epoch,
    view,
    digest: o.digest.toLowerCase() as `0x${string}`,
    certificate: `0x${bare.toLowerCase()}`,
    header: header as Record<string, unknown>,
  };
}

/**
 * Runs one request within the budgets; never rejects.
 * @param read turns the result into the answer
 */
async function budgeted(
  request: ConsensusRequest,
  method: string,
  params: unknown[],
  options: ReadOptions,
  read: (result: unknown) => FinalizationAnswer,
): Promise<FinalizationAnswer> {
  const timeoutMs = options.timeoutMs ?? CONSENSUS_READ_DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? CONSENSUS_READ_DEFAULTS.maxBytes;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<FinalizationAnswer>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`${method} took more than ${timeoutMs} ms`));
      resolve({ kind: 'failed', reason: `${method} did not answer within ${timeoutMs} ms` });
    }, timeoutMs);
  });
  const answered = (async (): Promise<FinalizationAnswer> => {
    try {
      return read(await request(method, params, { signal: controller.signal, maxBytes }));
    } catch (e) {
      return classify(method, e);
    }
  })();
  try {
    return await Promise.race([answered, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asks a node for a finalization certificate (`consensus_getFinalization`).
 * @example
 * const a = await readFinalization(request, { height: 812 });
 * if (a.kind === 'certified') verifyFinality({ certificate: a.block.certificate, height: 812, blockHash, context }, options);
 * @returns what happened; never throws. For a height query, an answer for another height is `failed`.
 */
export function readFinalization(
  request: ConsensusRequest,
  query: FinalizationQuery,
  options: ReadOptions = {},
): Promise<FinalizationAnswer> {
  const method = 'consensus_getFinalization';
  if (query !== 'latest' && !(Number.isSafeInteger(query.height) && query.height >= 0))
    return Promise.resolve({ kind: 'failed', reason: `height ${query.height} is not a non-negative integer` });
  return budgeted(request, method, [query === 'latest' ? 'latest' : { height: query.height }], options, (result) => {
    const block = certifiedBlock(result);
    if (typeof block === 'string') return { kind: 'failed', reason: `${method}: ${block}` };
    if (query !== 'latest' && block.height !== query.height)
      return { kind: 'failed', reason: `${method} answered block ${block.height} for height ${query.height}` };
    return { kind: 'certified', block };
  });
}

/**
 * Asks a node for its newest finalized certificate through `consensus_getLatest` (its `finalized` member; the
 * `notarized` member is never read).
 * @returns what happened; never throws. No finalized block yet is `missing`.
 */
export function readLatestFinalized(request: ConsensusRequest, options: ReadOptions = {}): Promise<FinalizationAnswer> {
  const method = 'consensus_getLatest';
  return budgeted(request, method, [], options, (result) => {
    if (typeof result !== 'object' || result === null) return { kind: 'failed', reason: `${method}: the answer is not an object` };
    const finalized = (result as { finalized?: unknown }).finalized;
    if (finalized === null || finalized === undefined) return { kind: 'missing', reason: `${method}: the node has no finalized block yet` };
    const block = certifiedBlock(finalized);
    if (typeof block === 'string') return { kind: 'failed', reason: `${method}: ${block}` };
    return { kind: 'certified', block };
  });
}

/**
 * How an observation's detail is stored: its JSON text compressed with raw DEFLATE (node:zlib) against a fixed
 * dictionary, behind a one-byte format tag. A detail is ~3.3 kB of JSON of which most is the same keys and
 * constants in every transaction (the TIP-20 Transfer topic, the 0x20c0… token prefix, 32-byte left padding):
 * alone DEFLATE gets it to ~1,040 bytes, with the dictionary to ~390 (bench/results/store-size.md,
 * docs/decisions.md "Stored details"). Brotli (no custom dictionary in Node 20) reached ~1,010.
 *
 * The details of one write that share a block time are packed together (packDetails): one DEFLATE stream for the
 * group, held by its first row, so what transactions of the same block repeat (the block's hash, height and time,
 * token addresses) is stored once: ~270 instead of ~395 bytes per detail at 10 a block, and about a third less
 * compression time (bench/README.md, docs/decisions.md "Details packed by block time"). Reading a grouped detail
 * needs its group's first row: ./stored-details.ts resolves them.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { constants, DeflateRaw } from 'fast-zlib';

/** Format tag of packDetail's output: raw DEFLATE against DICTIONARY_V1. */
const FORMAT_DEFLATE_V1 = 1;

/**
 * Format tag of a group's first row: [2, rows in the group (one byte, 2…DETAIL_GROUP_ROWS), raw DEFLATE against
 * DICTIONARY_V1 of the group's JSON texts joined by a newline (JSON.stringify never writes one)].
 */
const FORMAT_GROUP_HEAD = 2;

/**
 * Format tag of a group's other rows: [3, k (one byte, 1…DETAIL_GROUP_ROWS − 1)]: the row's text is the group's k-th,
 * and the group's first row is the row whose seq is this row's seq − k (a write gives a group consecutive seqs).
 */
const FORMAT_GROUP_MEMBER = 3;

/** Rows in one group at most: reading one detail inflates at most this many. */
export const DETAIL_GROUP_ROWS = 16;

/** JSON characters in one group at most (a larger detail is packed alone): bounds what reading one detail inflates. */
export const DETAIL_GROUP_CHARS = 65_536;

/**
 * The preset dictionary of format 1: one Tempo TIP-20 transfer's detail with every address and hash zeroed
 * (keys, the order the decoder writes them, and the constants every transfer repeats). NEVER change it: stored
 * details of format 1 inflate only with exactly these bytes; a better dictionary is a new format tag.
 */
export const DICTIONARY_V1 = Buffer.from(
  '{"transaction":{"hash":"0x0000000000000000000000000000000000000000000000000000000000000000","type":"0x76","aaAuthorizationList":[],"accessList":[],"calls":[{"to":"0x20c0000000000000000000000000000000000001","value":"0","input":"0xa9059cbb00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001","data":null}],"chainId":"4217","feePayerSignature":null,"feeToken":"0x20c0000000000000000000000000000000000001","gas":"100000","keyAuthorization":null,"maxFeePerGas":"1000000008","maxPriorityFeePerGas":"1000000000","nonce":"860","nonceKey":"0","signature":{"type":"secp256k1","r":"0x0000000000000000000000000000000000000000000000000000000000000000","s":"0x0000000000000000000000000000000000000000000000000000000000000000","yParity":"0","v":"0"},"validAfter":null,"validBefore":null,"blockHash":"0x0000000000000000000000000000000000000000000000000000000000000000","blockNumber":"517","transactionIndex":"2","from":"0x0000000000000000000000000000000000000000","blockTimestamp":"1795709329"},"receipt":{"status":"success","gas_used":"35746","effective_gas_price":"1000000008","cumulative_gas_used":"107238","fee_token":"0x20c0000000000000000000000000000000000001","fee_payer":"0x0000000000000000000000000000000000000000","fee_atomic":"36","fee_log_atomic":"36","fee_log_index":5,"logs":[{"log_index":4,"address":"0x20c0000000000000000000000000000000000001","event":"Transfer","args":{"from":"0x0000000000000000000000000000000000000000","to":"0x0000000000000000000000000000000000000000","amount":"1"},"topics":["0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef","0x0000000000000000000000000000000000000000000000000000000000000000","0x0000000000000000000000000000000000000000000000000000000000000000"],"data":"0x0000000000000000000000000000000000000000000000000000000000000000"},{"log_index":5,"address":"0x20c0000000000000000000000000000000000001","event":"Transfer","args":{"from":"0x0000000000000000000000000000000000000000","to":"0xfeec000000000000000000000000000000000000","amount":"36"},"topics":["0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef","0x0000000000000000000000000000000000000000000000000000000000000000","0x0000000000000000000000000000000000000000000000000000000000000000"],"data":"0x0000000000000000000000000000000000000000000000000000000000000000"}]},"evidence":{"block_hash":"0x0000000000000000000000000000000000000000000000000000000000000000","block_height":517,"tx_index":2,"source":"https://rpc.tempo.xyz","fetched_at":"2026-01-01T00:00:00.000Z","finalized_height":2000},"legs":[{"from":"0x0000000000000000000000000000000000000000","to":"0x0000000000000000000000000000000000000000","asset_contract":"0x20c0000000000000000000000000000000000001","amount":"0.000001","amount_atomic":"1","log_index":4,"memo":null,"kind":"transfer","payer":"0x0000000000000000000000000000000000000000","settlement":null,"x402_proxy":null}],"calls":[{"index":0,"target":"0x20c0000000000000000000000000000000000001","selector":"0xa9059cbb","function":"transfer","args":{"to":"0x0000000000000000000000000000000000000000","amount":"1"},"value":"0"}],"forensics":[],"unknown":[],"assets":{"0x20c0000000000000000000000000000000000001":"AlphaUSD"},"payer":"0x0000000000000000000000000000000000000000","settlement":null,"attribution":null}',
  'utf8',
);

/** DEFLATE level: 6 (zlib's default) compresses within 1% of 9 and faster (bench/results/store-size.md). */
const LEVEL = 6;

/**
 * A raw DEFLATE compressor against `dictionary` at LEVEL whose zlib context lives as long as the thread: each call
 * compresses one input whole (Z_FINISH), then resets the context, which sets the dictionary again, so every output
 * is byte for byte what `deflateRawSync(input, { level: LEVEL, dictionary })` gives (test/store/detail-codec.test.ts).
 * Why: building a zlib context (the stream object, ~270 kB of state, the dictionary) cost more than compressing a
 * detail (node's deflateRawSync builds one per call; 60 → 48 µs per detail, 40 → 26 µs per integrity on the
 * benchmark's chain, docs/decisions.md "Reused DEFLATE contexts"). fast-zlib keeps node's own zlib context open
 * across synchronous calls. Synchronous use only, so one context per module (a thread loads its own) is safe.
 * @returns compress(input): the DEFLATE bytes, a Buffer of their own
 */
function reusedDeflate(dictionary: Buffer): (input: string | Buffer) => Buffer {
  let deflate = new DeflateRaw({ level: LEVEL, dictionary });
  return (input) => {
    try {
      return deflate.process(input, constants.Z_FINISH);
    } catch {
      // A failed context may still emit 'error' on the next tick (fast-zlib drops listeners): keep it from crashing
      // the thread, start a fresh context, and let node's one-shot deflate give this input's answer or its error.
      deflate.instance?.on('error', () => {});
      deflate = new DeflateRaw({ level: LEVEL, dictionary });
      return deflateRawSync(input, { level: LEVEL, dictionary });
    } finally {
      deflate.instance?.reset();
    }
  };
}

/**
 * The stored form of a detail's JSON text: [format tag, DEFLATE bytes…].
 * @param json the ObservationDetail as JSON text (serializeObservation in ./rows.ts)
 */
export function packDetail(json: string): Buffer {
  return withHeader([FORMAT_DEFLATE_V1], deflateDetail(json));
}

/** `header` (the format tag and its bytes) followed by `body`, in one new Buffer. */
function withHeader(header: readonly number[], body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(header.length + body.length);
  out.set(header);
  body.copy(out, header.length);
  return out;
}

/**
 * The stored forms of the details of one write, in seq order (the rows' seqs consecutive): each maximal run of
 * consecutive items with the same block time, at most DETAIL_GROUP_ROWS rows and DETAIL_GROUP_CHARS characters, is
 * one group (its first row FORMAT_GROUP_HEAD, the others FORMAT_GROUP_MEMBER); an item alone, or holding a
 * newline, is packDetail's output.
 * @param items each detail's JSON text (serializeObservation) and block time (UTC seconds), in the order of their seqs
 * @returns one stored form per item, same order
 * @example packDetails([{ time: 7, json: a }, { time: 7, json: b }]) // [[2, 2, …DEFLATE(a\nb)], [3, 1]]
 */
export function packDetails(items: readonly { time: number; json: string }[]): Buffer[] {
  const out: Buffer[] = new Array(items.length);
  // Each text searched once: the newline is the group separator.
  const groupable = items.map((it) => !it.json.includes('\n'));
  for (let i = 0; i < items.length; ) {
    let j = i + 1;
    let chars = items[i]!.json.length;
    if (groupable[i])
      while (
        j < items.length &&
        j - i < DETAIL_GROUP_ROWS &&
        items[j]!.time === items[i]!.time &&
        groupable[j] &&
        chars + 1 + items[j]!.json.length <= DETAIL_GROUP_CHARS
      )
        chars += 1 + items[j++]!.json.length;
    if (j - i === 1) out[i] = packDetail(items[i]!.json);
    else {
      const texts: string[] = [];
      for (let k = i; k < j; k++) texts.push(items[k]!.json);
      out[i] = withHeader([FORMAT_GROUP_HEAD, j - i], deflateDetail(texts.join('\n')));
      for (let k = 1; k < j - i; k++) out[i + k] = Buffer.from([FORMAT_GROUP_MEMBER, k]);
    }
    i = j;
  }
  return out;
}

/** What a stored detail is: whole (legacy JSON text or format 1), a group's first row, or a member of a group. */
export type StoredDetailForm = { form: 'whole' } | { form: 'head'; rows: number } | { form: 'member'; index: number };

/** Reads the form of stored detail bytes (packed) from their tag, without inflating anything. */
export function storedDetailForm(packed: Uint8Array): StoredDetailForm {
  if (packed[0] === FORMAT_GROUP_HEAD) return { form: 'head', rows: packed[1] ?? 0 };
  if (packed[0] === FORMAT_GROUP_MEMBER) return { form: 'member', index: packed[1] ?? 0 };
  return { form: 'whole' };
}

/**
 * The JSON texts of a group from its first row's bytes (FORMAT_GROUP_HEAD).
 * @throws Error when the bytes are not a group's first row, are corrupt or inflate past a group's bound, or hold
 *   another number of texts than stated
 */
export function unpackDetailGroup(packed: Uint8Array): string[] {
  const b = asBuffer(packed);
  if (b[0] !== FORMAT_GROUP_HEAD) throw new Error(`stored detail of format ${b[0]} is not the first row of a group`);
  // A group holds at most DETAIL_GROUP_CHARS characters, at most 4 UTF-8 bytes each: anything longer is not ours.
  const text = inflateRawSync(b.subarray(2), { dictionary: DICTIONARY_V1, maxOutputLength: 4 * DETAIL_GROUP_CHARS });
  const texts = text.toString('utf8').split('\n');
  if (texts.length !== b[1]) throw new Error(`stored detail group holds ${texts.length} texts where its first row says ${b[1]}`);
  return texts;
}

/** `packed` as a Buffer over the same bytes. */
function asBuffer(packed: Uint8Array): Buffer {
  return Buffer.isBuffer(packed) ? packed : Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength);
}

/**
 * The JSON text of a stored detail packed alone (packDetail's output); grouped rows are read by ./stored-details.ts.
 * @throws Error when the format tag is unknown (a store written by a newer paywatch) or a group's, or the bytes are corrupt
 */
export function unpackDetail(packed: Uint8Array): string {
  const b = asBuffer(packed);
  if (b[0] === FORMAT_GROUP_HEAD || b[0] === FORMAT_GROUP_MEMBER)
    throw new Error(`stored detail of format ${b[0]} is part of a group: read it with its group (readStoredDetails)`);
  if (b[0] !== FORMAT_DEFLATE_V1) throw new Error(`stored detail has unknown format ${b[0]} (written by a newer paywatch?)`);
  return inflateRawSync(b.subarray(1), { dictionary: DICTIONARY_V1 }).toString('utf8');
}

/**
 * The preset dictionary of packed integrity: one transaction's Integrity (two passed stages) with its roots zeroed.
 * NEVER change it: packed integrity of format 1 inflates only with exactly these bytes.
 */
export const INTEGRITY_DICTIONARY_V1 = Buffer.from(
  '{"score":2,"maximum":5,"version":"1","scope":"transaction-in-finalized-block","stages":[{"level":1,"label":"finalized receipt","status":"pass","reason":"block 909 <= finalized head 2000 when read from https://rpc.tempo.xyz; receipt matches transaction hash, block hash, height and index 8"},{"level":2,"label":"block commitment","status":"pass","reason":"keccak256 of the re-encoded type 0x76 transaction equals its hash; transactionsRoot recomputed and matched (0x0000000000000000000000000000000000000000000000000000000000000000); receiptsRoot recomputed and matched (0x0000000000000000000000000000000000000000000000000000000000000000); block hash recomputed from the header (ethereum encoding) and matched"}],"evaluated_at":"2026-01-01T00:00:00.000Z","independent_consensus_verified":false}',
  'utf8',
);

const deflateDetail = reusedDeflate(DICTIONARY_V1);
const deflateIntegrity = reusedDeflate(INTEGRITY_DICTIONARY_V1);

/**
 * The first two members as JSON.stringify writes an Integrity (score, then maximum: the order of
 * evaluateBlockIntegrity's object): read from the text's start, the collector's writer skips parsing ~790
 * characters per row; any other text is parsed whole.
 */
const LEADING_MEMBERS = /^\{"score":(\d+),"maximum":(\d+),/;

/** A packed integrity: its score and maximum in plain JSON (the export reads them in SQL) and the whole, deflated. */
interface PackedIntegrity {
  score: number;
  maximum: number;
  /** "1:" (the format) and the base64 of the Integrity's JSON text deflated against INTEGRITY_DICTIONARY_V1. */
  z: string;
}

/**
 * The stored text of an observation's integrity (JSON text of the Integrity member): `{"score","maximum","z"}`,
 * ~180 characters instead of ~790, still JSON, so SQL reads of `$.score` and `$.maximum` (./export.ts) and the text
 * column stay as they are on both dialects. Text already packed is returned unchanged.
 */
export function packIntegrity(json: string): string {
  if (json.includes('"z":"')) return json;
  const lead = LEADING_MEMBERS.exec(json);
  const { score, maximum } = lead
    ? { score: Number(lead[1]), maximum: Number(lead[2]) }
    : (JSON.parse(json) as { score: number; maximum: number });
  const z = deflateIntegrity(json).toString('base64');
  return JSON.stringify({ score, maximum, z: `${FORMAT_DEFLATE_V1}:${z}` } satisfies PackedIntegrity);
}

/**
 * The Integrity's JSON text from its stored text (packIntegrity's output, or JSON text stored before chain_0007).
 * @throws Error when the format is unknown (a store written by a newer paywatch) or the bytes are corrupt
 */
export function unpackIntegrity(stored: string): string {
  if (!stored.includes('"z":"')) return stored;
  const outer = JSON.parse(stored) as PackedIntegrity & Record<string, unknown>;
  const { z } = outer;
  const colon = z.indexOf(':');
  if (z.slice(0, colon) !== String(FORMAT_DEFLATE_V1)) throw new Error(`stored integrity has unknown format ${z.slice(0, colon)}`);
  const text = inflateRawSync(Buffer.from(z.slice(colon + 1), 'base64'), { dictionary: INTEGRITY_DICTIONARY_V1 }).toString('utf8');
  // Members set beside the packed text later (the finality upgrade of stores before chain_0015) win, in place.
  const later = Object.keys(outer).filter((k) => k !== 'score' && k !== 'maximum' && k !== 'z');
  if (later.length === 0) return text;
  const inner = JSON.parse(text) as Record<string, unknown>;
  for (const k of later) inner[k] = outer[k];
  return JSON.stringify(inner);
}

/**
 * Canonical (EIP-2718) encodings of a node's transactions and receipts, rebuilt from their JSON-RPC form with
 * ox's envelope serializers, so that integrity can hash them and rebuild the block's tries.
 *
 * Sources of the rules: EIP-2718 (typed envelope = type byte ‖ payload, legacy = plain RLP), EIP-155, and
 * tempoxyz/tempo `crates/primitives` (type 0x76 envelope; system transactions are legacy with r = s = 0;
 * `TempoReceiptEnvelope` encodes every receipt type, 0x76 included, as type byte ‖ rlp([status,
 * cumulativeGasUsed, logsBloom, logs]) like Ethereum).
 */
// ox's modules one by one: its index would load every other module too.
import { PaywatchError, shortMessage } from '../../domain/errors.js';
import type * as Hex from 'ox/Hex';
import * as TxEnvelopeEip1559 from 'ox/TxEnvelopeEip1559';
import * as TxEnvelopeEip2930 from 'ox/TxEnvelopeEip2930';
import * as TxEnvelopeEip7702 from 'ox/TxEnvelopeEip7702';
import * as TxEnvelopeLegacy from 'ox/TxEnvelopeLegacy';
import * as TempoTransaction from 'ox/tempo/Transaction';
import * as TxEnvelopeTempo from 'ox/tempo/TxEnvelopeTempo';
import type { RpcReceipt, RpcTransaction } from '../types.js';
import { RlpWriter } from './rlp-writer.js';

/** Thrown when a transaction or receipt cannot be re-encoded; `message` says why (it becomes an `unknown` reason). */
export class UnsupportedEncodingError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'unsupported_encoding' });
  }
}

/** Transaction types whose canonical encoding this module can rebuild (JSON-RPC `type`, lower-case hex). */
export const SUPPORTED_TX_TYPES = ['0x0', '0x1', '0x2', '0x4', '0x76'] as const;

/** Normalises a JSON-RPC type quantity ('0x02' → '0x2'); null when it is not a quantity. */
function normType(type: unknown): string | null {
  if (typeof type !== 'string' || !/^0x[0-9a-fA-F]+$/.test(type)) return null;
  return `0x${BigInt(type).toString(16)}`;
}

/** Drops JSON nulls: the node writes null for an absent optional member, which ox would read as "present". */
function withoutNulls(tx: RpcTransaction): Record<string, unknown> {
  return Object.fromEntries(Object.entries(tx).filter(([, v]) => v !== null));
}

/**
 * Rebuilds the signed, canonical encoding of one transaction from its JSON-RPC object: for legacy, plain RLP
 * with the EIP-155 `v` the node reported; for types 1, 2, 4 and 0x76, the type byte followed by the RLP payload
 * (for 0x76 including the fee payer's signature when present). keccak256 of the result is the transaction hash,
 * and it is the value stored under rlp(index) in the block's transactions trie.
 *
 * @param tx the node's transaction object (eth_getBlockByNumber(h, true))
 * @returns the encoding as 0x hex
 * @throws UnsupportedEncodingError for a type not in SUPPORTED_TX_TYPES or fields ox rejects
 */
export function encodeTransaction(tx: RpcTransaction): Hex.Hex {
  const type = normType(tx.type);
  if (type === null || !(SUPPORTED_TX_TYPES as readonly string[]).includes(type)) {
    throw new UnsupportedEncodingError(`transaction type ${String(tx.type)} has no known canonical encoding`);
  }
  const rpc = withoutNulls(tx) as unknown as TempoTransaction.Rpc;
  try {
    const parsed = TempoTransaction.fromRpc(rpc) as unknown as Record<string, unknown>;
    switch (type) {
      case '0x0': {
        // Keep the node's v: it carries the chain id (EIP-155) or 27/28, and system transactions (r = s = 0) too.
        const v = Number(BigInt(tx.v as string));
        return TxEnvelopeLegacy.serialize({ ...(parsed as unknown as TxEnvelopeLegacy.TxEnvelopeLegacy), type: 'legacy', v });
      }
      case '0x1':
        return TxEnvelopeEip2930.serialize({ ...(parsed as unknown as TxEnvelopeEip2930.TxEnvelopeEip2930), type: 'eip2930' });
      case '0x2':
        return TxEnvelopeEip1559.serialize({ ...(parsed as unknown as TxEnvelopeEip1559.TxEnvelopeEip1559), type: 'eip1559' });
      case '0x4':
        return TxEnvelopeEip7702.serialize({ ...(parsed as unknown as TxEnvelopeEip7702.TxEnvelopeEip7702), type: 'eip7702' });
      default:
        return TxEnvelopeTempo.serialize({ ...(parsed as unknown as TxEnvelopeTempo.TxEnvelopeTempo), type: 'tempo' });
    }
  } catch (e) {
    throw new UnsupportedEncodingError(`transaction type ${type} could not be re-encoded: ${shortMessage(e)}`);
  }
}

/** The shape of a secp256k1 signature or fee payer signature as the node serves it. */
interface RpcSignature {
  r: string;
  s: string;
  yParity?: string;
  v?: string;
}

/** The y parity (0 or 1) of a served signature: `yParity`, else from `v` (0/1 or 27/28). */
function yParityOf(sig: RpcSignature): 0 | 1 {
  const v = Number(BigInt((sig.yParity ?? sig.v) as string));
  if (v === 0 || v === 27) return 0;
  if (v === 1 || v === 28) return 1;
  throw new UnsupportedEncodingError(`signature parity ${v} is not 0, 1, 27 or 28`);
}

/** A served quantity that is zero ("0x0", "0x00"). */
const isZero = (v: string): boolean => /^0x0*$/.test(v);

/**
 * Writes (./rlp-writer.ts, prepended to what `w` holds) the canonical encoding of the common shape of a Tempo
 * (0x76) transaction, built straight from its JSON-RPC members: a secp256k1 sender signature, no Tempo
 * authorization list, no key authorization, validity bounds absent or non-zero, a fee payer signature absent or
 * secp256k1. Field order and rules are those of ox's TxEnvelopeTempo.serialize (tempoxyz/tempo
 * `crates/primitives` TempoTransaction): [chainId, maxPriorityFeePerGas, maxFeePerGas, gas, calls [[to, value,
 * data]…], accessList, nonceKey, nonce, validBefore, validAfter, feeToken, feePayerSignature [yParity, r, s] or
 * empty, authorizationList, signature (r ‖ s ‖ v, v = 27 + yParity)], after the type byte 0x76.
 *
 * A fast path only: the caller keeps it when keccak256 of the answer equals the transaction's stated hash and
 * otherwise falls back to encodeTransaction (ox), so a shape this function gets wrong costs time, never a
 * wrong verdict. test/chain/integrity-rlp.test.ts holds it to ox on recorded transactions.
 *
 * @returns false, having written nothing, for a shape it does not handle
 * @throws MalformedHexError or UnsupportedEncodingError for members that are not hex (part of it may be written)
 */
export function writeTempoTransaction(w: RlpWriter, tx: RpcTransaction): boolean {
  const t = tx as Record<string, unknown>;
  const sig = t.signature as (RpcSignature & { type?: string }) | null | undefined;
  if (t.type !== '0x76' || !sig || sig.type !== 'secp256k1') return false;
  const auths = (t.aaAuthorizationList ?? t.authorizationList) as unknown[] | null | undefined;
  if (auths?.length || t.keyAuthorization != null) return false;
  const { validBefore, validAfter } = t as { validBefore?: string | null; validAfter?: string | null };
  if ((validBefore != null && isZero(validBefore)) || (validAfter != null && isZero(validAfter))) return false;
  const calls = t.calls as { to?: string | null; value?: string | null; input?: string | null; data?: string | null }[] | undefined;
  if (!Array.isArray(calls)) return false;
  const accessList = (t.accessList ?? []) as { address: string; storageKeys: string[] }[];
  const fps = t.feePayerSignature as RpcSignature | null | undefined;
  const parity = yParityOf(sig);
  const tail = w.size();
  // Back to front (./rlp-writer.ts): the signature first, the chain id last.
  const sigMark = w.size();
  w.byte(27 + parity);
  w.scalar32(sig.s);
  w.scalar32(sig.r);
  w.byte(w.size() - sigMark); // 65 bytes: a string header 0xb8 0x41
  w.byte(0xb8);
  w.byte(0xc0);
  if (fps) {
    const m = w.size();
    w.quantity(fps.s);
    w.quantity(fps.r);
    w.byte(yParityOf(fps) ? 0x01 : 0x80);
    w.list(m);
  } else w.byte(0x80);
  if (typeof t.feeToken === 'string') w.data(t.feeToken);
  else w.byte(0x80);
  if (validAfter == null) w.byte(0x80);
  else w.quantity(validAfter);
  if (validBefore == null) w.byte(0x80);
  else w.quantity(validBefore);
  w.quantity(t.nonce as string);
  if (t.nonceKey) w.quantity(t.nonceKey as string);
  else w.byte(0x80);
  const al = w.size();
  for (let i = accessList.length - 1; i >= 0; i--) {
    const a = accessList[i]!;
    const m = w.size();
    w.dataList(a.storageKeys);
    w.data(a.address);
    w.list(m);
  }
  w.list(al);
  const cl = w.size();
  for (let i = calls.length - 1; i >= 0; i--) {
    const c = calls[i]!;
    const m = w.size();
    w.data(c.input || c.data || '0x');
    if (c.value) w.quantity(c.value);
    else w.byte(0x80);
    if (c.to) w.data(c.to);
    else w.byte(0x80);
    w.list(m);
  }
  w.list(cl);
  w.quantity(t.gas as string);
  w.quantity(t.maxFeePerGas as string);
  w.quantity(t.maxPriorityFeePerGas as string);
  w.quantity(t.chainId as string);
  w.list(tail);
  w.byte(0x76);
  return true;
}

/** The writer behind the hex-returning encoders below (blockCommitment has its own). */
const hexWriter = new RlpWriter();

/**
 * writeTempoTransaction's encoding on its own.
 * @returns unprefixed hex (type byte 76 first), or null for a shape it does not handle
 * @throws MalformedHexError or UnsupportedEncodingError for members that are not hex
 */
export function encodeTempoTransactionFast(tx: RpcTransaction): string | null {
  hexWriter.begin();
  return writeTempoTransaction(hexWriter, tx) ? Buffer.from(hexWriter.view()).toString('hex') : null;
}

const RECEIPT_TYPES = ['0x0', '0x1', '0x2', '0x4', '0x76', '0x77'];

/**
 * Writes (prepended to what `w` holds) the consensus encoding of one receipt, the value stored under rlp(index)
 * in the block's receipts trie: rlp([status, cumulativeGasUsed, logsBloom, [[address, topics, data]…]]),
 * prefixed by the type byte unless legacy. Tempo encodes 0x76 (and the retired 0x77) receipts the same way
 * (TempoReceiptEnvelope). Held to ox's Rlp in test/chain/integrity.test.ts and integrity-trie.test.ts.
 *
 * @param r the node's receipt (eth_getBlockReceipts); only post-Byzantium receipts (with `status`) are encodable
 * @throws UnsupportedEncodingError when the receipt has no status (pre-EIP-658 root form), an unknown type or
 *   members that are not hex (part of it may be written then)
 */
export function writeReceipt(w: RlpWriter, r: RpcReceipt): void {
  const type = normType(r.type);
  if (type === null || !RECEIPT_TYPES.includes(type)) {
    throw new UnsupportedEncodingError(`receipt type ${String(r.type)} has no known consensus encoding`);
  }
  if (typeof r.status !== 'string') throw new UnsupportedEncodingError('receipt has no status (pre-EIP-658 state-root receipt)');
  try {
    const payload = w.size();
    const logs = w.size();
    for (let i = r.logs.length - 1; i >= 0; i--) {
      const l = r.logs[i]!;
      const m = w.size();
      w.data(l.data);
      w.dataList(l.topics);
      w.data(l.address);
      w.list(m);
    }
    w.list(logs);
    w.data(r.logsBloom);
    w.quantity(r.cumulativeGasUsed);
    w.quantity(r.status);
    w.list(payload);
    if (type !== '0x0') w.byte(Number.parseInt(type.slice(2), 16));
  } catch (e) {
    throw new UnsupportedEncodingError(`receipt could not be encoded: ${shortMessage(e)}`);
  }
}

/**
 * writeReceipt's encoding on its own.
 * @returns the encoding as 0x hex
 * @throws UnsupportedEncodingError as writeReceipt
 */
export function encodeReceipt(r: RpcReceipt): Hex.Hex {
  hexWriter.begin();
  writeReceipt(hexWriter, r);
  return `0x${Buffer.from(hexWriter.view()).toString('hex')}`;
}

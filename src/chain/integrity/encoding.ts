/**
 * Canonical (EIP-2718) encodings of a node's transactions and receipts, rebuilt from their JSON-RPC form with
 * ox's envelope serializers, so that integrity can hash them and rebuild the block's tries.
 *
 * Sources of the rules: EIP-2718 (typed envelope = type byte ‖ payload, legacy = plain RLP), EIP-155, and
 * tempoxyz/tempo `crates/primitives` (type 0x76 envelope; system transactions are legacy with r = s = 0;
 * `TempoReceiptEnvelope` encodes every receipt type, 0x76 included, as type byte ‖ rlp([status,
 * cumulativeGasUsed, logsBloom, logs]) like Ethereum).
 */
import { Hex, Rlp, TxEnvelopeEip1559, TxEnvelopeEip2930, TxEnvelopeEip7702, TxEnvelopeLegacy } from 'ox';
import { Transaction as TempoTransaction, TxEnvelopeTempo } from 'ox/tempo';
import type { RpcReceipt, RpcTransaction } from '../types.js';
import { rlpQuantity as quantity } from './rpc-values.js';

/** Thrown when a transaction or receipt cannot be re-encoded; `message` says why (it becomes an `unknown` reason). */
export class UnsupportedEncodingError extends Error {
  override name = 'UnsupportedEncodingError';
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
    throw new UnsupportedEncodingError(`transaction type ${type} could not be re-encoded: ${(e as Error).message.split('\n')[0]}`);
  }
}

/**
 * Rebuilds the consensus encoding of one receipt, the value stored under rlp(index) in the block's receipts
 * trie: rlp([status, cumulativeGasUsed, logsBloom, [[address, topics, data]…]]), prefixed by the type byte
 * unless legacy. Tempo encodes 0x76 (and the retired 0x77) receipts the same way (TempoReceiptEnvelope).
 *
 * @param r the node's receipt (eth_getBlockReceipts); only post-Byzantium receipts (with `status`) are encodable
 * @returns the encoding as 0x hex
 * @throws UnsupportedEncodingError when the receipt has no status (pre-EIP-658 root form) or an unknown type
 */
export function encodeReceipt(r: RpcReceipt): Hex.Hex {
  const type = normType(r.type);
  if (type === null || !['0x0', '0x1', '0x2', '0x4', '0x76', '0x77'].includes(type)) {
    throw new UnsupportedEncodingError(`receipt type ${String(r.type)} has no known consensus encoding`);
  }
  if (typeof r.status !== 'string') throw new UnsupportedEncodingError('receipt has no status (pre-EIP-658 state-root receipt)');
  try {
    const payload = Rlp.fromHex([
      quantity(r.status),
      quantity(r.cumulativeGasUsed),
      r.logsBloom,
      r.logs.map((l) => [l.address, l.topics, l.data]),
    ]);
    return type === '0x0' ? payload : Hex.concat(Hex.padLeft(type as Hex.Hex, 1), payload);
  } catch (e) {
    throw new UnsupportedEncodingError(`receipt could not be encoded: ${(e as Error).message.split('\n')[0]}`);
  }
}

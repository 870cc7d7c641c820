/**
 * The calls of a transaction: each call of a Tempo 0x76 batch (`calls[]`), or the single `to`/`input` of other
 * types, with target, selector, function name and decoded arguments where a known ABI (./abi.ts) decodes them.
 */
import { decodeAbiParameters } from 'viem';
import type { RpcTransaction } from '../types.js';
import { functionForCall } from './abi.js';
import { mapped } from './arrays.js';
import { TIP20_PREFIX } from './constants.js';
import { plain, quantity } from './json.js';
import { decodeStaticWords } from './words.js';

/** One decoded call. `function` and `args` are null when no known ABI decodes the calldata. */
export type DecodedCall = {
  index: number;
  /** Lower-case target, or null for contract creation. */
  target: string | null;
  /** 0x + 8 hex digits, or null when the input is shorter than a selector. */
  selector: string | null;
  function: string | null;
  /** Decoded arguments by name (JSON-safe: integers as strings, addresses lower-case). */
  args: Record<string, unknown> | null;
  /** Native value, atomic integer string (always "0" on Tempo, which forbids native value). */
  value: string;
};

/**
 * The calls of a transaction (0x76 `calls`, else its `to`/`input`); never throws.
 * @param tx the node's transaction object
 * @param tokens whether an address is a known token (its calls are decoded with the TIP-20 ABI)
 * @param system the transaction is a Tempo system transaction (legacy, r = s = 0, from 0x0): its input is
 *   RLP-encoded data for the protocol, not an ABI call, so it gets no selector and is never "undecoded"
 *   (tempoxyz/tempo `crates/primitives`, system transactions; docs/decoding.md, "Detail members")
 */
export function callsOf(tx: RpcTransaction, tokens: { isToken(address: string): boolean }, system = false): DecodedCall[] {
  const raw: { to: unknown; input: unknown; value: unknown }[] = Array.isArray(tx.calls)
    ? (tx.calls as Record<string, unknown>[]).map((c) => ({ to: c.to, input: c.input ?? c.data, value: c.value }))
    : [{ to: tx.to, input: tx.input ?? tx.data, value: tx.value }];
  return mapped(raw, (c, index) => decodeCall(index, c.to, c.input, c.value, tokens, system));
}

function decodeCall(
  index: number,
  to: unknown,
  input: unknown,
  value: unknown,
  tokens: { isToken(address: string): boolean },
  system: boolean,
): DecodedCall {
  const target = typeof to === 'string' ? to.toLowerCase() : null;
  // Whole bytes of hex: a length check and a plain character class (a repeated group backtracks on long input).
  const data =
    typeof input === 'string' && input.length % 2 === 0 && /^0x[0-9a-f]*$/i.test(input) ? (input.toLowerCase() as `0x${string}`) : '0x';
  const selector = !system && data.length >= 10 ? data.slice(0, 10) : null;
  const call: DecodedCall = { index, target, selector, function: null, args: null, value: (quantity(value) ?? 0n).toString() };
  if (!target || !selector) return call;
  const fn = functionForCall(target, selector, target.startsWith(TIP20_PREFIX) || tokens.isToken(target));
  if (!fn) return call;
  try {
    // decodeFunctionData with the one matching item, minus re-hashing the ABI to find it.
    const params = `0x${data.slice(10)}` as `0x${string}`;
    const args = fn.inputs.length > 0 ? (decodeStaticWords(fn.inputs, params) ?? decodeAbiParameters(fn.inputs, params)) : [];
    call.function = fn.name;
    call.args = Object.fromEntries(args.map((v, k) => [fn.inputs[k]!.name || `arg${k}`, plain(v)]));
  } catch {
    /* malformed calldata for this function: function stays null */
  }
  return call;
}

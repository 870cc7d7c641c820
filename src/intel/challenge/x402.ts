/**
 * x402 payment requirements → offers. One tolerant reader for every form seen: the v1 body
 * (`{x402Version: 1, accepts: [{maxAmountRequired, network: "base-sepolia"…}]}`), the v2 `PAYMENT-REQUIRED`
 * header (base64 JSON `{x402Version: 2, resource: {url}, accepts: [{amount, network: "eip155:…"}]}`), and the
 * mixtures in the wild (a v1 payload in the v2 header, v1 field names with CAIP-2 networks, a directory item
 * whose `accepts` mixes both). Source of the shapes: x402-foundation/x402 specs v1 and v2, /work/shared/domain-notes.md.
 */
import { toDecimal } from '../../domain/money.js';
import type { Offer, OfferSource } from '../../domain/intel.js';
import { knownDecimals, normaliseAddress, toCaip2 } from './networks.js';
import { isObject, str } from './guards.js';

export interface ParseResult {
  offers: Offer[];
  /** One line per problem, naming the field ("accepts[1].payTo missing"). Never thrown. */
  errors: string[];
}

/**
 * Reads an atomic integer amount: a base-10 integer string (leading zeros dropped) or a safe integer number.
 * @returns the canonical atomic string, or null when `v` is not a non-negative integer
 */
export function atomicAmount(v: unknown): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return String(v);
  if (typeof v === 'string' && /^\d{1,78}$/.test(v.trim())) return BigInt(v.trim()).toString();
  return null;
}

/** Fills `amount`/`decimals` from the atomic amount where the asset's decimals are known. */
export function withDecimal(network: string | null, asset: string | null, amountAtomic: string | null): Pick<Offer, 'amount' | 'decimals'> {
  const decimals = knownDecimals(network, asset);
  return { decimals, amount: decimals !== null && amountAtomic !== null ? toDecimal(amountAtomic, decimals) : null };
}

/**
 * Converts one x402 payload (any version) into offers.
 * @param payload the decoded JSON (header or body)
 * @param source where it was read: 'header', 'body' or 'directory'/'well-known'
 * @param ctx resourceUrl: the probed URL, used when the payload names no resource
 * @param fallbackVersion version assumed when neither the payload nor the entry states one (header 2, body 1)
 */
export function parseX402Payload(
  payload: unknown,
  source: OfferSource,
  ctx: { resourceUrl?: string } = {},
  fallbackVersion = 1,
): ParseResult {
  const errors: string[] = [];
  const offers: Offer[] = [];
  if (!isObject(payload)) return { offers, errors: [`x402 ${source}: not a JSON object`] };
  const accepts = payload.accepts;
  if (!Array.isArray(accepts)) return { offers, errors: [`x402 ${source}: accepts is not an array`] };
  const top = payload.resource;
  const topUrl = isObject(top) ? str(top.url) : str(top);
  const topDescription = isObject(top) ? str(top.description) : null;
  const version = typeof payload.x402Version === 'number' ? payload.x402Version : null;
  accepts.forEach((entry, i) => {
    const at = `x402 ${source} accepts[${i}]`;
    if (!isObject(entry)) {
      errors.push(`${at}: not an object`);
      return;
    }
    const rawAmount = entry.amount ?? entry.maxAmountRequired;
    const amountAtomic = atomicAmount(rawAmount);
    const scheme = str(entry.scheme);
    const payTo = normaliseAddress(entry.payTo);
    const missing = [!scheme && 'scheme', !payTo && 'payTo', rawAmount === undefined && 'amount'].filter(Boolean);
    if (missing.length) {
      errors.push(`${at}: missing ${missing.join(', ')}`);
      return;
    }
    if (amountAtomic === null) {
      errors.push(`${at}: amount ${JSON.stringify(rawAmount)} is not an atomic integer`);
      return;
    }
    const network = toCaip2(entry.network);
    const asset = normaliseAddress(entry.asset);
    // The version: the payload's, else the entry's own (directory items), else the field names' (amount → v2).
    const v =
      version ??
      (typeof entry.x402Version === 'number'
        ? entry.x402Version
        : 'amount' in entry
          ? 2
          : 'maxAmountRequired' in entry
            ? 1
            : fallbackVersion);
    const timeout = entry.maxTimeoutSeconds;
    offers.push({
      protocol: 'x402',
      x402_version: v,
      scheme,
      method: null,
      network,
      asset,
      amount_atomic: amountAtomic,
      ...withDecimal(network, asset, amountAtomic),
      pay_to: payTo,
      max_timeout_seconds: typeof timeout === 'number' && Number.isFinite(timeout) ? timeout : null,
      expires: null,
      description: str(entry.description) ?? topDescription,
      resource: str(entry.resource) ?? topUrl ?? ctx.resourceUrl ?? null,
      extra: isObject(entry.extra) ? entry.extra : null,
      source,
    });
  });
  return { offers, errors };
}

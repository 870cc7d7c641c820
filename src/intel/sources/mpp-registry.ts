/**
 * MPP registry collector for catalogs in the `https://mpp.dev/api/services` format. The format is not published
 * as a schema; this reader follows the catalog as consumers of it describe it (`{version, services: [{id, name,
 * serviceUrl (alias url), description, categories, tags, endpoints: [{method, path, description, payment:
 * {intent, method, currency, decimals, amount, recipient?}}]}]}`) and is tolerant: a bare array of services is
 * accepted, unknown members are ignored, an endpoint without a path or method is skipped with a warning.
 * `amount` is read as an atomic integer string (null means "variable"); with `decimals` the decimal is derived.
 */
import { toDecimal } from '../../domain/money.js';
import { atomicAmount } from '../challenge/x402.js';
import { normaliseAddress } from '../challenge/networks.js';
import type { DiscoveredService, Offer } from '../../domain/intel.js';
import { fetchJson, SourceAnswerError } from './fetch-json.js';
import type { CollectOptions, SourceAnswer } from './types.js';
import { isObject, str } from '../challenge/guards.js';

/** Joins a service base URL and an endpoint path, keeping the base's own path ("/v1" + "/x" → "/v1/x"). */
export function joinUrl(base: string, path: string): string | null {
  try {
    if (/^https?:\/\//i.test(path)) return new URL(path).href;
    const b = new URL(base);
    b.pathname = `${b.pathname.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
    return b.href;
  } catch {
    return null;
  }
}

function offerOf(p: Record<string, unknown>, resource: string): Offer {
  const amountAtomic = p.amount === null || p.amount === undefined ? null : atomicAmount(p.amount);
  const decimals =
    typeof p.decimals === 'number' && Number.isInteger(p.decimals) && p.decimals >= 0 && p.decimals <= 36 ? p.decimals : null;
  const details = isObject(p.methodDetails) ? p.methodDetails : null;
  const chainId = details?.chainId ?? p.chainId;
  return {
    protocol: 'mpp',
    x402_version: null,
    scheme: str(p.intent),
    method: str(p.method),
    network: typeof chainId === 'number' && Number.isSafeInteger(chainId) ? `eip155:${chainId}` : null,
    asset: normaliseAddress(p.currency),
    amount_atomic: amountAtomic,
    amount: decimals !== null && amountAtomic !== null ? toDecimal(amountAtomic, decimals) : null,
    decimals,
    pay_to: normaliseAddress(p.recipient),
    max_timeout_seconds: null,
    expires: null,
    description: str(p.description),
    resource,
    extra: null,
    source: 'directory',
  };
}

/** Converts a parsed catalog into services (one per endpoint). */
export function mppRegistryServices(doc: unknown, source: string, warnings: string[]): DiscoveredService[] {
  const list = Array.isArray(doc) ? doc : isObject(doc) && Array.isArray(doc.services) ? doc.services : null;
  if (!list) throw new SourceAnswerError('not an MPP registry answer (no services array)');
  const out: DiscoveredService[] = [];
  for (const s of list) {
    if (!isObject(s)) continue;
    const base = str(s.serviceUrl) ?? str(s.url);
    const endpoints = Array.isArray(s.endpoints) ? s.endpoints : [];
    if (!base || !/^https?:\/\//i.test(base)) {
      warnings.push(`service ${String(s.id ?? s.name)}: no http(s) serviceUrl`);
      continue;
    }
    for (const e of endpoints) {
      const method = isObject(e) ? str(e.method) : null;
      const path = isObject(e) ? str(e.path) : null;
      const url = path ? joinUrl(base, path) : null;
      if (!isObject(e) || !method || !url) {
        warnings.push(`service ${String(s.id ?? s.name)}: endpoint without method or path`);
        continue;
      }
      const payments = Array.isArray(e.payment) ? e.payment : isObject(e.payment) ? [e.payment] : [];
      const offers = payments.filter(isObject).map((p) => offerOf(p, url));
      out.push({ method: method.toUpperCase(), url, tool: null, source, description: str(e.description) ?? str(s.description), offers });
    }
  }
  return out;
}

/** Fetches and reads an MPP catalog (one answer). @throws when it cannot be fetched or is not a catalog */
export async function collectMppRegistry(url: string, source: string, opts: CollectOptions, warnings: string[]): Promise<SourceAnswer[]> {
  const { doc, raw, fetched_at } = await fetchJson(url, opts);
  return [{ answer: raw, fetched_at, services: mppRegistryServices(doc, source, warnings) }];
}

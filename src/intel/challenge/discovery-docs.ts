/**
 * Self-descriptions an origin publishes: `/openapi.json` with `x-service-info` (document root) and per-operation
 * `x-payment-info` (MPP discovery, validated with mppx's own `PaymentInfo`/`ServiceInfo` schemas), and
 * `/.well-known/x402`. Discovery is advisory: the endpoint's own 402 stays authoritative.
 *
 * `/.well-known/x402` has no schema in the libraries installed here; the reader is tolerant (assumption,
 * documented in docs/intelligence.md): `{version?, resources: [...], ownershipProofs?}` where each resource is a
 * URL string, a path (resolved against the origin), or an object `{url|resource, method?, description?,
 * accepts?: [x402 requirements]}`.
 */
import { PaymentInfo, ServiceInfo } from 'mppx/discovery';
import type { Offer } from '../../domain/intel.js';
import { normaliseAddress } from './networks.js';
import { atomicAmount, parseX402Payload, withDecimal } from './x402.js';
import { isObject, str } from './guards.js';

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;

/** A paid operation described by a discovery document. */
export interface DescribedOperation {
  /** Upper-case HTTP method. */
  method: string;
  /** Absolute URL when the origin or `servers[0].url` is known, else null. */
  url: string | null;
  path: string | null;
  description: string | null;
  offers: Offer[];
}

export interface DiscoveryDocResult {
  /** `x-service-info` as published (validated), or null. */
  service_info: Record<string, unknown> | null;
  operations: DescribedOperation[];
  errors: string[];
}

function resolve(base: string | null, path: string): string | null {
  try {
    return new URL(path, base ?? undefined).href;
  } catch {
    return null;
  }
}

/**
 * Reads `x-service-info` and every operation's `x-payment-info` from an OpenAPI document.
 * Offers: protocol 'mpp', scheme = intent, method = payment method, asset = currency, source 'openapi';
 * network is null (the document does not state it).
 * @param doc the parsed JSON document
 * @param ctx origin: used to make absolute URLs when the document has no absolute `servers[0].url`
 */
export function parseOpenApiPaymentInfo(doc: unknown, ctx: { origin?: string } = {}): DiscoveryDocResult {
  const out: DiscoveryDocResult = { service_info: null, operations: [], errors: [] };
  if (!isObject(doc)) return { ...out, errors: ['openapi: not a JSON object'] };
  if (doc['x-service-info'] !== undefined) {
    const si = ServiceInfo.safeParse(doc['x-service-info']);
    if (si.success) out.service_info = si.data as Record<string, unknown>;
    else out.errors.push('openapi: x-service-info is malformed');
  }
  const servers = Array.isArray(doc.servers) ? doc.servers : [];
  const server = isObject(servers[0]) ? str(servers[0].url) : null;
  const base = server ? resolve(ctx.origin ?? null, server) : (ctx.origin ?? null);
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const m of HTTP_METHODS) {
      const op = item[m];
      if (!isObject(op) || op['x-payment-info'] === undefined) continue;
      const at = `openapi ${m.toUpperCase()} ${path}`;
      const parsed = PaymentInfo.safeParse(op['x-payment-info']);
      if (!parsed.success) {
        out.errors.push(`${at}: x-payment-info is malformed`);
        continue;
      }
      const url = base ? resolve(base.endsWith('/') ? base : `${base}/`, path.replace(/^\//, '')) : null;
      const offers: Offer[] = [];
      parsed.data.offers.forEach((o, i) => {
        const amountAtomic = o.amount === null || o.amount === undefined ? null : atomicAmount(o.amount);
        if (o.amount != null && amountAtomic === null)
          out.errors.push(`${at} offers[${i}]: amount ${JSON.stringify(o.amount)} is not an atomic integer`);
        const asset = normaliseAddress(o.currency);
        offers.push({
          protocol: 'mpp',
          x402_version: null,
          scheme: str(o.intent),
          method: str(o.method),
          network: null,
          asset,
          amount_atomic: amountAtomic,
          ...withDecimal(null, asset, amountAtomic),
          pay_to: normaliseAddress(o.recipient),
          max_timeout_seconds: null,
          expires: null,
          description: str(o.description),
          resource: url,
          extra: null,
          source: 'openapi',
        });
      });
      out.operations.push({ method: m.toUpperCase(), url, path, description: str(op.summary) ?? str(op.description), offers });
    }
  }
  return out;
}

/**
 * Reads an origin's `/.well-known/x402` document (tolerant shape, see the module comment).
 * @param doc the parsed JSON document
 * @param ctx origin: resolves relative resource paths
 * @returns one operation per resource (method GET unless stated), offers with source 'well-known'
 */
export function parseWellKnownX402(doc: unknown, ctx: { origin?: string } = {}): DiscoveryDocResult {
  const out: DiscoveryDocResult = { service_info: null, operations: [], errors: [] };
  if (!isObject(doc)) return { ...out, errors: ['well-known: not a JSON object'] };
  if (!Array.isArray(doc.resources)) return { ...out, errors: ['well-known: resources is not an array'] };
  doc.resources.forEach((r, i) => {
    const ref = typeof r === 'string' ? r : isObject(r) ? (str(r.url) ?? str(r.resource)) : null;
    if (!ref) {
      out.errors.push(`well-known resources[${i}]: no URL`);
      return;
    }
    const url = resolve(ctx.origin ?? null, ref);
    if (!url) {
      out.errors.push(`well-known resources[${i}]: ${JSON.stringify(ref.slice(0, 100))} is not a URL`);
      return;
    }
    let offers: Offer[] = [];
    if (isObject(r) && Array.isArray(r.accepts)) {
      const res = parseX402Payload({ x402Version: r.x402Version, accepts: r.accepts, resource: url }, 'well-known');
      offers = res.offers;
      out.errors.push(...res.errors.map((e) => `resources[${i}] ${e}`));
    }
    out.operations.push({
      method: isObject(r) && str(r.method) ? str(r.method)!.toUpperCase() : 'GET',
      url,
      path: null,
      description: isObject(r) ? str(r.description) : null,
      offers,
    });
  });
  return out;
}

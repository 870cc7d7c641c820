/**
 * x402 Bazaar collector: `GET {facilitator}/discovery/resources?type=http&limit=&offset=`, page after page until
 * `pagination.total` is reached, a page comes back empty, or `maxPages` pages were read. Items mix v1 and v2
 * fields (v1: `maxAmountRequired` and network names; v2: `amount` and CAIP-2); `parseX402Payload` reads both.
 * `lastUpdated` is an ISO string in real answers (a Unix number is tolerated).
 */
import { parseX402Payload } from '../challenge/x402.js';
import type { DiscoveredService } from '../../domain/intel.js';
import { fetchJson, SourceAnswerError } from './fetch-json.js';
import type { CollectOptions, SourceAnswer } from './types.js';
import { isObject, str } from '../challenge/guards.js';

/** True for an absolute http(s) URL the WHATWG parser accepts. */
export function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The discovery URL of one page. */
export function bazaarPageUrl(facilitator: string, limit: number, offset: number, type = 'http'): string {
  const u = new URL(`${facilitator.replace(/\/+$/, '')}/discovery/resources`);
  u.searchParams.set('type', type);
  u.searchParams.set('limit', String(limit));
  u.searchParams.set('offset', String(offset));
  return u.href;
}

/**
 * Converts one Bazaar item; null (with a warning) when it has no http(s) resource URL.
 * Method: `metadata.method`, else the v1 `outputSchema.input.method`, else GET (POST for type "mcp").
 * Tool: `metadata.toolName`/`metadata.tool` for type "mcp".
 */
export function bazaarItem(item: unknown, source: string, warnings: string[]): DiscoveredService | null {
  if (!isObject(item)) {
    warnings.push('bazaar item is not an object');
    return null;
  }
  const resource = str(item.resource) ?? (isObject(item.resource) ? str(item.resource.url) : null);
  if (!resource || !isHttpUrl(resource)) {
    warnings.push(`bazaar item without an http(s) resource: ${JSON.stringify(String(item.resource)).slice(0, 120)}`);
    return null;
  }
  const accepts = Array.isArray(item.accepts) ? item.accepts : [];
  const first = isObject(accepts[0]) ? accepts[0] : {};
  const meta = isObject(item.metadata) ? item.metadata : {};
  const input = isObject(first.outputSchema) && isObject(first.outputSchema.input) ? first.outputSchema.input : {};
  const isMcp = item.type === 'mcp';
  const method = (str(meta.method) ?? str(input.method) ?? (isMcp ? 'POST' : 'GET')).toUpperCase();
  const parsed = parseX402Payload({ x402Version: item.x402Version, accepts, resource }, 'directory', { resourceUrl: resource });
  warnings.push(...parsed.errors.map((e) => `${resource}: ${e}`));
  return {
    method,
    url: resource,
    tool: isMcp ? (str(meta.toolName) ?? str(meta.tool)) : null,
    source,
    description: str(first.description) ?? str(meta.description),
    offers: parsed.offers,
  };
}

/**
 * Reads every page of a Bazaar directory.
 * @param facilitator the facilitator base URL (without /discovery/resources)
 * @returns one answer per page read, with the services of that page
 * @throws on a page that cannot be fetched or is not a Bazaar answer (the caller records it as the source's error)
 */
export async function collectBazaar(
  facilitator: string,
  source: string,
  opts: CollectOptions,
  warnings: string[],
): Promise<SourceAnswer[]> {
  const pageSize = opts.pageSize ?? 100;
  const maxPages = opts.maxPages ?? 100;
  const out: SourceAnswer[] = [];
  let offset = 0;
  for (let page = 0; page < maxPages; page++) {
    const { doc, raw, fetched_at } = await fetchJson(bazaarPageUrl(facilitator, pageSize, offset), opts);
    if (!isObject(doc) || !Array.isArray(doc.items)) throw new SourceAnswerError('not a Bazaar answer (no items array)');
    const services: DiscoveredService[] = [];
    for (const item of doc.items) {
      const svc = bazaarItem(item, source, warnings);
      if (svc) services.push(svc);
    }
    out.push({ answer: raw, fetched_at, services });
    const total = isObject(doc.pagination) && typeof doc.pagination.total === 'number' ? doc.pagination.total : null;
    offset += doc.items.length;
    if (doc.items.length === 0 || (total !== null && offset >= total)) return out;
  }
  warnings.push(`stopped after ${maxPages} pages`);
  return out;
}

/**
 * Per-origin self-descriptions: `{origin}/.well-known/x402` and `{origin}/openapi.json`, read with the parsers of
 * src/intel/challenge/discovery-docs.ts. An operation without an absolute URL cannot be probed and is skipped.
 */
import { parseOpenApiPaymentInfo, parseWellKnownX402, type DiscoveryDocResult } from '../challenge/discovery-docs.js';
import type { DiscoveredService } from '../../domain/intel.js';
import { fetchJson } from './fetch-json.js';
import type { CollectOptions, SourceAnswer } from './types.js';

function toServices(res: DiscoveryDocResult, source: string, warnings: string[]): DiscoveredService[] {
  warnings.push(...res.errors);
  return res.operations
    .filter((op) => op.url !== null)
    .map((op) => ({ method: op.method, url: op.url!, tool: null, source, description: op.description, offers: op.offers }));
}

/** The origin (scheme://host[:port]) of a URL. @throws TypeError on a non-URL */
export function originOf(url: string): string {
  return new URL(url).origin;
}

/** Reads `{origin}/.well-known/x402` (one answer). @throws when it cannot be fetched or is not JSON */
export async function collectWellKnown(origin: string, source: string, opts: CollectOptions, warnings: string[]): Promise<SourceAnswer[]> {
  const o = originOf(origin);
  const { doc, raw, fetched_at } = await fetchJson(`${o}/.well-known/x402`, opts);
  return [{ answer: raw, fetched_at, services: toServices(parseWellKnownX402(doc, { origin: o }), source, warnings) }];
}

/** Reads `{origin}/openapi.json` (one answer). @throws when it cannot be fetched or is not JSON */
export async function collectOpenApi(origin: string, source: string, opts: CollectOptions, warnings: string[]): Promise<SourceAnswer[]> {
  const o = originOf(origin);
  const { doc, raw, fetched_at } = await fetchJson(`${o}/openapi.json`, opts);
  return [{ answer: raw, fetched_at, services: toServices(parseOpenApiPaymentInfo(doc, { origin: o }), source, warnings) }];
}

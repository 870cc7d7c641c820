/**
 * The configured source list: real public defaults and the parser of the `sources` setting
 * (`--sources` / PAYWATCH_SOURCES, read by src/config.ts). No network and no heavy imports here, so the
 * configuration can validate with it.
 */
import { PaywatchError, shortMessage } from './errors.js';
import { readFileSync } from 'node:fs';

/** A `--sources` value or file that is not a list of directories. */
export class SourcesConfigError extends PaywatchError {
  constructor(message: string) {
    super(message, { code: 'sources_config' });
  }
}

/**
 * Kinds of source:
 * - "bazaar": an x402 facilitator; `url` is the facilitator base, the collector reads `{url}/discovery/resources`.
 * - "mpp-registry": a catalog in the `https://mpp.dev/api/services` format; `url` is the catalog itself.
 * - "well-known": an origin; the collector reads `{origin}/.well-known/x402`.
 * - "openapi": an origin; the collector reads `{origin}/openapi.json` (`x-payment-info`, `x-service-info`).
 */
export type SourceKind = 'bazaar' | 'mpp-registry' | 'well-known' | 'openapi';

export interface SourceConfig {
  /** Unique name, recorded on every service it yields (DiscoveredService.source). */
  name: string;
  kind: SourceKind;
  url: string;
}

export const SOURCE_KINDS: readonly SourceKind[] = ['bazaar', 'mpp-registry', 'well-known', 'openapi'];

/**
 * Real public defaults (docs/intelligence.md, "Sources"): the Coinbase CDP x402 facilitator's Bazaar and the
 * curated MPP catalog on mpp.dev.
 */
export const DEFAULT_SOURCES: readonly SourceConfig[] = [
  { name: 'cdp-bazaar', kind: 'bazaar', url: 'https://api.cdp.coinbase.com/platform/v2/x402' },
  { name: 'mpp-registry', kind: 'mpp-registry', url: 'https://mpp.dev/api/services' },
];

/** The default list in the textual form parseSources reads. */
export const DEFAULT_SOURCES_SPEC = DEFAULT_SOURCES.map((s) => `${s.name}=${s.kind}:${s.url}`).join(',');

/**
 * Parses the `sources` setting (flag `--sources`, env PAYWATCH_SOURCES):
 * - a comma-separated list of `name=kind:url` or `kind:url` entries (name defaults to `kind@host`), e.g.
 *   `cdp=bazaar:https://api.cdp.coinbase.com/platform/v2/x402,mpp-registry:https://mpp.dev/api/services`;
 * - or `@path/to/file.json`, a JSON array of `{name?, kind, url}`.
 * kind is one of bazaar, mpp-registry, well-known, openapi; url must be http(s).
 * @throws Error naming the bad entry (the CLI shows it as a configuration error)
 */
export function parseSources(spec: string): SourceConfig[] {
  const s = spec.trim();
  let raw: { name?: unknown; kind?: unknown; url?: unknown }[];
  if (s.startsWith('@')) {
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(s.slice(1), 'utf8'));
    } catch (e) {
      throw new SourcesConfigError(`sources file ${s.slice(1)} cannot be read as JSON: ${shortMessage(e)}`);
    }
    if (!Array.isArray(doc)) throw new SourcesConfigError(`sources file ${s.slice(1)} must hold a JSON array of {name?, kind, url}`);
    raw = doc;
  } else {
    raw = s
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)
      .map((entry) => {
        const m = /^(?:([^=]+)=)?([a-z-]+):(.+)$/.exec(entry);
        if (!m) throw new SourcesConfigError(`source entry ${JSON.stringify(entry)} is not [name=]kind:url`);
        return { name: m[1], kind: m[2], url: m[3] };
      });
  }
  const out: SourceConfig[] = raw.map((r, i) => {
    const kind = r.kind as SourceKind;
    if (!SOURCE_KINDS.includes(kind)) throw new SourcesConfigError(`source ${i}: kind must be one of ${SOURCE_KINDS.join(', ')}`);
    if (typeof r.url !== 'string' || !/^https?:\/\/[^/]/i.test(r.url))
      throw new SourcesConfigError(`source ${i}: url must be an http(s) URL`);
    const name = typeof r.name === 'string' && r.name.trim() ? r.name.trim() : `${kind}@${new URL(r.url).host}`;
    return { name, kind, url: r.url };
  });
  const names = new Set<string>();
  for (const o of out) {
    if (names.has(o.name)) throw new SourcesConfigError(`source name ${o.name} is used twice`);
    names.add(o.name);
  }
  return out;
}

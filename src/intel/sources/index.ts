/**
 * Source collection: one entry point, `collectSource`, over the four kinds of source, keeping each source's
 * freshness (last attempt, last success, last error, item count); and the configured source list
 * (`parseSources`, DEFAULT_SOURCES). Collectors never throw: a failed source keeps its previous successes and
 * records the error. Every entry read passes the bounded reader (../read-bounds.ts): an entry with an unknown method,
 * an oversized URL or tool name is refused with a `directory_entry_invalid` note; long text is cut.
 */
import { collectBazaar } from './bazaar.js';
import { collectMppRegistry } from './mpp-registry.js';
import { collectOpenApi, collectWellKnown } from './origin.js';
import type { CollectOptions, CollectResult, SourceFreshness } from './types.js';
import type { SourceConfig } from '../../domain/sources.js';
import { shortMessage } from '../../domain/errors.js';
import { intelLimit } from '../limits.js';
import { boundService, type SourceNote } from '../read-bounds.js';

export type { CollectOptions, CollectResult, SourceAnswer, SourceFreshness } from './types.js';
export type { SourceConfig, SourceKind } from '../../domain/sources.js';
export { bazaarItem, bazaarPageUrl, collectBazaar } from './bazaar.js';
export { mppRegistryServices, collectMppRegistry, joinUrl } from './mpp-registry.js';
export { collectOpenApi, collectWellKnown, originOf } from './origin.js';
export { DEFAULT_SOURCES, DEFAULT_SOURCES_SPEC, SOURCE_KINDS, parseSources } from '../../domain/sources.js';

/** Freshness of a source never collected. */
export function initialFreshness(src: SourceConfig): SourceFreshness {
  return { name: src.name, kind: src.kind, url: src.url, last_attempt_at: null, last_success_at: null, last_error: null, item_count: null };
}

/**
 * Collects one source.
 * @param src the configured source
 * @param prev its previous freshness (kept: last success and item count survive a failure)
 * @param opts fetch limits; allowLoopback for tests and the demo only
 * @returns the discovered services (empty on failure), the new freshness and warnings about skipped items
 */
export async function collectSource(
  src: SourceConfig,
  prev: SourceFreshness | null = null,
  opts: CollectOptions = {},
): Promise<CollectResult> {
  const now = opts.now ?? (() => new Date());
  const attempt = now().toISOString();
  const base = prev ?? initialFreshness(src);
  const warnings: string[] = [];
  try {
    const answers =
      src.kind === 'bazaar'
        ? await collectBazaar(src.url, src.name, opts, warnings)
        : src.kind === 'mpp-registry'
          ? await collectMppRegistry(src.url, src.name, opts, warnings)
          : src.kind === 'well-known'
            ? await collectWellKnown(src.url, src.name, opts, warnings)
            : await collectOpenApi(src.url, src.name, opts, warnings);
    const notes: SourceNote[] = [];
    let refused = 0;
    for (const a of answers) {
      a.services = a.services.flatMap((d) => {
        const r = boundService(d);
        if ('service' in r) return [r.service];
        refused++;
        if (notes.length < intelLimit('notes_per_source')) notes.push(r.note);
        return [];
      });
    }
    if (refused > notes.length)
      notes[notes.length - 1] = {
        kind: 'directory_entry_invalid',
        detail: `${refused - notes.length + 1} more entries refused`,
        url: null,
      };
    const services = answers.flatMap((a) => a.services);
    return {
      services,
      answers,
      warnings,
      notes,
      freshness: {
        ...base,
        name: src.name,
        kind: src.kind,
        url: src.url,
        last_attempt_at: attempt,
        last_success_at: now().toISOString(),
        last_error: null,
        item_count: services.length,
      },
    };
  } catch (err) {
    return {
      services: [],
      answers: [],
      warnings,
      notes: [],
      freshness: {
        ...base,
        name: src.name,
        kind: src.kind,
        url: src.url,
        last_attempt_at: attempt,
        last_error: shortMessage(err),
      },
    };
  }
}

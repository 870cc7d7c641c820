/**
 * What every route plugin receives: the store, the configuration and live component state.
 * Routes stay thin: they parse input, call one query function with this context, and shape output.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Store } from './store/db.js';
import type { CollectorState } from './store/chain-repo.js';

/** The chain collector's live state, as the collector running in this process reports it. */
export type LiveCollectorState = CollectorState & { behind_blocks: number | null; started_at: string };

/** Live state of components running in this process, by name; read by /api/status and /readyz. */
export type LiveComponents = Map<'collector', () => LiveCollectorState>;

export interface AppContext {
  store: Store;
  config: Config;
  log?: FastifyBaseLogger;
  /** Live state of components running in this process; read by /api/status and /readyz. */
  components: LiveComponents;
}

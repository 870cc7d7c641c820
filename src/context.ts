/**
 * What every route plugin receives: the store, the configuration and live component state.
 * Routes stay thin: they parse input, call one query function with this context, and shape output.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Store } from './store/db.js';
import type { CollectorState } from './store/chain/index.js';
import type { SharedLimits } from './limits/shared.js';

/** The chain collector's live state, as the collector running in this process reports it. */
/** `rpc`: the JSON-RPC client's figures (RpcStats of src/chain/rpc.ts; typed loosely here to keep context.ts below chain/). */
export type LiveCollectorState = CollectorState & { behind_blocks: number | null; started_at: string; rpc?: object };

/** Live state of components running in this process, by name; read by /api/status and /readyz. */
export type LiveComponents = Map<'collector', () => LiveCollectorState>;

export interface AppContext {
  /** The `--db` store: writes, intake, metering, trust-check keys and quotas; public reads too unless `readStore`. */
  store: Store;
  /** `--db-read`: the store the public reads use (a PostgreSQL streaming replica that fails over to `store`). */
  readStore?: Store;
  /**
   * Set by buildApp in the public routes' context when they read `readStore`: the `--db` store, asked before a
   * detail the replica lacks is a 404.
   */
  primary?: Store;
  config: Config;
  /** Where per-client limits count (`--redis`: shared by every replica); default: this process's memory. */
  limits?: SharedLimits;
  log?: FastifyBaseLogger;
  /** Live state of components running in this process; read by /api/status and /readyz. */
  components: LiveComponents;
}

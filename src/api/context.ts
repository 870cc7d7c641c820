/**
 * What every route plugin receives: the store, the configuration and live component state.
 * Routes stay thin: they parse input, call one query function with this context, and shape output.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Store } from '../store/db.js';

export interface AppContext {
  store: Store;
  config: Config;
  log?: FastifyBaseLogger;
  /** Live state of components running in this process (collector, probes…), by name; read by /api/status. */
  components: Map<string, () => unknown>;
}

/**
 * The whole database type: one interface per area, composed. Each area owns its table file in ./tables
 * and its migrations in ./migrations, so areas evolve without touching each other.
 */
import type { ChainTables } from './tables/chain.js';
import type { IntelTables } from './tables/intel.js';
import type { IntakeTables } from './tables/intake.js';
import type { TrustTables } from './tables/trust.js';

export interface Database extends ChainTables, IntelTables, IntakeTables, TrustTables {}

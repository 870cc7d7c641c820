/**
 * The public and private route plugins of the main listener, in registration order. Each area adds its plugin
 * here with one line; plugins receive the AppContext as options. Which list a plugin is in decides whether its
 * routes answer CORS (src/http/cors.ts): public for any origin, private never.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../context.js';
import { providerRoutes } from './providers.js';
import { intelligenceRoutes } from './intelligence.js';
import { intakeRoutes } from './intake.js';
import { operatorRoutes } from './operator.js';
import { mcpRoutes } from '../../mcp/route.js';
import { chainRoutes } from './chain.js';
import { manifestRoutes } from './manifest.js';
import { rankingRoutes } from './rankings.js';

/** Free reads and the MCP endpoint: CORS for any origin. */
export const publicRoutePlugins: FastifyPluginAsync<AppContext>[] = [
  providerRoutes,
  intelligenceRoutes,
  mcpRoutes,
  chainRoutes,
  rankingRoutes,
  manifestRoutes,
];

/** Signed intake and operator reads: no CORS, preflight refused. */
export const privateRoutePlugins: FastifyPluginAsync<AppContext>[] = [intakeRoutes, operatorRoutes];

/**
 * The public and private route plugins of the main listener, in registration order.
 * Each area adds its plugin here with one line; plugins receive the AppContext as options.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { providerRoutes } from './providers.js';
import { intelligenceRoutes } from './intelligence.js';
import { intakeRoutes } from './intake.js';
import { operatorRoutes } from './operator.js';
import { mcpRoutes } from '../../mcp/route.js';
import { chainRoutes } from './chain.js';
import { manifestRoutes } from './manifest.js';

export const routePlugins: FastifyPluginAsync<AppContext>[] = [
  providerRoutes,
  intelligenceRoutes,
  intakeRoutes,
  operatorRoutes,
  mcpRoutes,
  chainRoutes,
  manifestRoutes,
];

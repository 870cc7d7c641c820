/**
 * The demo's local discovery directory, served beside the facilitator:
 * - `GET /discovery/resources?type=&limit=&offset=`: x402 Bazaar format
 *   (`{x402Version, items: [{resource, type, x402Version, accepts, lastUpdated, metadata}], pagination}`), the v1
 *   item with v1 field names (`maxAmountRequired`, "base-sepolia") and the v2 item with v2 ones (`amount`, CAIP-2),
 *   as real directories mix them.
 * - `GET /api/services`: the MPP registry format (`{version, services: [{id, name, serviceUrl, description,
 *   categories, endpoints: [{method, path, description, payment: {intent, method, currency, decimals, amount}}]}]}`).
 * Both are built from the services' current terms on every request (the price being `listedPrice` when set, so a
 * directory that lags behind the endpoint can be shown).
 */
import type { Hono } from 'hono';
import type { ServiceDefinition } from './services.js';
import { TEMPO_MAINNET } from '../../domain/tempo.js';

/** What the directory needs to know of a running service. */
export interface ListedService {
  def: ServiceDefinition;
  origin: string;
  /** Upper-case HTTP method when not GET (Bazaar `metadata.method`). */
  method?: string;
}

function bazaarItem({ def, origin, method }: ListedService) {
  const resource = `${origin}${def.path}`;
  const t = def.terms;
  const price = t.listedPrice ?? t.price;
  const metadata = { name: def.name, description: def.description, ...(method ? { method } : {}) };
  const common = { resource, type: 'http', lastUpdated: t.updatedAt, metadata };
  if (def.protocol === 'x402-v2') {
    return {
      ...common,
      x402Version: 2,
      accepts: t.assets.map((asset) => ({
        scheme: 'exact',
        network: TEMPO_MAINNET,
        amount: price,
        asset,
        payTo: t.payTo,
        maxTimeoutSeconds: 300,
      })),
    };
  }
  return {
    ...common,
    x402Version: 1,
    accepts: t.assets.map((asset) => ({
      scheme: 'exact',
      network: 'base-sepolia',
      maxAmountRequired: price,
      resource,
      description: def.description,
      mimeType: 'application/json',
      payTo: t.payTo,
      maxTimeoutSeconds: 300,
      asset,
      extra: { name: 'USDC', version: '2' },
    })),
  };
}

/**
 * Adds the directory routes to `app`.
 * @param list the services to list, read on every request
 */
export function mountDirectory(app: Hono, list: () => ListedService[]): void {
  app.get('/discovery/resources', (c) => {
    const limit = Math.min(Math.max(Number(c.req.query('limit') ?? 100) || 100, 1), 1000);
    const offset = Math.max(Number(c.req.query('offset') ?? 0) || 0, 0);
    const type = c.req.query('type');
    const items = list()
      .filter((s) => s.def.protocol !== 'mpp')
      .map(bazaarItem)
      .filter((i) => !type || i.type === type);
    return c.json({ x402Version: 2, items: items.slice(offset, offset + limit), pagination: { limit, offset, total: items.length } });
  });
  app.get('/api/services', (c) =>
    c.json({
      version: 1,
      services: list()
        .filter((s) => s.def.protocol === 'mpp')
        .map(({ def, origin }) => ({
          id: def.name,
          name: def.name,
          serviceUrl: origin,
          description: def.description,
          categories: ['search'],
          endpoints: def.terms.assets.map((currency) => ({
            method: 'GET',
            path: def.path,
            description: def.description,
            payment: { intent: 'charge', method: 'tempo', currency, decimals: 6, amount: def.terms.listedPrice ?? def.terms.price },
          })),
        })),
    }),
  );
}

/**
 * The read-only MCP tools of /api/mcp (docs/mcp.md): the contract's six intelligence tools (search_providers,
 * get_provider, get_intelligence_status, get_service_offers, get_service_changes, get_service_history) and the
 * chain reads (search_transactions, get_transaction, get_metrics, get_metrics_series, get_coverage, get_status).
 * Each takes its HTTP twin's query (and path) schema as arguments, calls the same query function and answers the
 * twin's 200 body as structuredContent plus the same JSON as text: from the same rendering the twin sends when the
 * answer is a remembered one (src/http/reply.ts renderedOnce), else rendered once for this call. Heavy reads take a
 * unit of the same per-client budget as their twins (src/limits/heavy-budget.ts heavyReadBudget). Errors are the
 * twins' sentences (./jsonrpc.ts).
 */
import { z } from 'zod';
import {
  chainStatus,
  coverage,
  isFilteredBeyondTime,
  metrics,
  metricsSeries,
  transactionDetail,
  transactionsPage,
} from '../chain/queries.js';
import {
  CoverageSchema,
  FiltersQuery,
  HashParams,
  MetricsSchema,
  MetricsSeriesSchema,
  SeriesQuery,
  StatusSchema,
  TransactionDetailSchema,
  TransactionListSchema,
  TransactionsQuery,
} from '../chain/schemas.js';
import type { AppContext } from '../context.js';
import { MANIFEST_PATH, publicBaseUrl } from '../http/base-urls.js';
import { renderedOnce } from '../http/reply.js';
import { heavyReadBudget } from '../limits/heavy-budget.js';
import { intelligenceStatus, listChanges, listHistory, listOffers, searchProviders } from '../intel/queries.js';
import {
  ChangesResponse,
  HistoryResponse,
  IntelligenceStatusResponse,
  IntelQuery,
  NoParams,
  OffersResponse,
  ProvidersQuery,
  ProvidersResponse,
} from '../intel/schemas.js';
import { freshJson, type ServerInfo, tool, ToolTable } from './jsonrpc.js';
import { payments, providerProfile, rankings } from '../chain/payments.js';
import {
  PaymentsAnswerSchema,
  PaymentsQuery,
  ProviderPaymentsArgs,
  ProviderProfileWithPayments,
  RankingSchema,
  RankingsToolArgs,
} from '../chain/payments-schemas.js';

/** The tools of /api/mcp and their HTTP twins, in `tools/list` order (documentation: OpenAPI, manifest, llms.txt). */
export const MCP_TOOLS = {
  search_providers: 'GET /api/providers',
  get_provider: 'GET /api/providers/{domain}',
  get_intelligence_status: 'GET /api/intelligence/status',
  get_service_offers: 'GET /api/intelligence/offers',
  get_service_changes: 'GET /api/intelligence/changes',
  get_service_history: 'GET /api/intelligence/history',
  search_transactions: 'GET /api/transactions',
  get_transaction: 'GET /api/transactions/{hash}',
  get_metrics: 'GET /api/metrics',
  get_metrics_series: 'GET /api/metrics/series',
  get_coverage: 'GET /api/coverage',
  get_status: 'GET /api/status',
  get_rankings: 'GET /api/rankings/{kind}',
  get_service_payments: 'GET /api/payments',
} as const;

/** The tools of the trust check's /v1/mcp (src/trust/mcp.ts) and their HTTP twin (documentation). */
export const TRUST_MCP_TOOLS = { check_url: 'POST /v1/check', check_pay_to: 'POST /v1/check/pay-to' } as const;

/** What /api/mcp tells a client's model in `initialize`. */
const INSTRUCTIONS =
  'Read-only observations of finalized Tempo (chain id 4217) transactions and of paid-service listings, dated endpoint checks and advertised payment offers. Records are observations, not a complete feed: a missing record is not zero activity. null means unknown, never zero. Money is an exact decimal string; nominal values are listed USD stablecoins at face value. Each tool answers exactly what its HTTP twin answers (named in its description); page with limit and offset, and fix until while paging. Poll at most every 5 seconds.';

const NoQuery = z.strictObject({});

/**
 * The public tool table over `ctx` (the read store when there is one), built once per app: tool definitions,
 * JSON Schemas and the fixed answers (src/mcp/jsonrpc.ts ToolTable).
 */
export function publicToolTable(ctx: AppContext, info: Omit<ServerInfo, 'instructions'>): ToolTable {
  const opts = () => ({ staleAfterDays: ctx.config.intelStaleDays });
  const heavy = heavyReadBudget(ctx.config);
  const twin = (name: keyof typeof MCP_TOOLS) => ` Same answer as ${MCP_TOOLS[name]}.`;
  return new ToolTable({ ...info, instructions: INSTRUCTIONS }, [
    tool({
      name: 'search_providers',
      title: 'Search paid-service providers',
      description: `Search provider listings with their latest dated endpoint checks, advertised offers and source freshness. Stale services are hidden unless include_stale is true.${twin('search_providers')}`,
      input: ProvidersQuery,
      output: ProvidersResponse,
      run: async (a) => renderedOnce(await searchProviders(ctx.store, a, opts())),
    }),
    tool({
      name: 'get_provider',
      title: 'Provider profile',
      description: `One provider profile: services, advertised offers, recent dated checks and the payments attributed to the provider and each service (default the last 30 days). Error when the provider is not listed.${twin('get_provider')}`,
      input: ProviderPaymentsArgs,
      output: ProviderProfileWithPayments,
      pathParams: ['domain'],
      run: async ({ domain, ...q }) => freshJson(await providerProfile(ctx.store, domain, q, opts())),
    }),
    tool({
      name: 'get_intelligence_status',
      title: 'Intelligence collection status',
      description: `Collection health, source freshness, history coverage and archive verification results.${twin('get_intelligence_status')}`,
      input: NoParams,
      output: IntelligenceStatusResponse,
      run: async () => freshJson(await intelligenceStatus(ctx.store, opts())),
    }),
    tool({
      name: 'get_service_offers',
      title: 'Advertised payment offers',
      description: `Retained advertised payment options (exact atomic amounts, snapshot ids, evidence hashes), newest first.${twin('get_service_offers')}`,
      input: IntelQuery,
      output: OffersResponse,
      run: async (a) => renderedOnce(await listOffers(ctx.store, a, opts())),
    }),
    tool({
      name: 'get_service_changes',
      title: 'Dated offer and status changes',
      description: `Dated changes of offers and endpoint status, newest first; each cites the snapshots it compares.${twin('get_service_changes')}`,
      input: IntelQuery,
      output: ChangesResponse,
      run: async (a) => renderedOnce(await listChanges(ctx.store, a, opts())),
    }),
    tool({
      name: 'get_service_history',
      title: 'Endpoint check history',
      description: `Dated endpoint checks with the offers each advertised, newest first; domain or service_id is required.${twin('get_service_history')}`,
      input: IntelQuery,
      output: HistoryResponse,
      run: async (a) => renderedOnce(await listHistory(ctx.store, a, opts())),
    }),
    tool({
      name: 'search_transactions',
      title: 'Search observed transactions',
      description: `Observed finalized Tempo transactions, block time descending then hash ascending, filtered by time window, wallet/hash/symbol/venue (q), asset, exchange and execution; page with limit and offset (fix until while paging: pages share no frozen snapshot).${twin('search_transactions')}`,
      input: TransactionsQuery,
      output: TransactionListSchema,
      budget: { of: heavy, heavy: (a) => isFilteredBeyondTime(a) },
      run: async (a) => {
        const page = await transactionsPage(ctx.store, a);
        // The twin's rendering of the same remembered page (src/api/routes/chain.ts): the same text, made once.
        return renderedOnce(page, () => ({ total: page.total, limit: a.limit, offset: a.offset, as_of: page.as_of, rows: page.rows }));
      },
    }),
    tool({
      name: 'get_transaction',
      title: 'One observed transaction',
      description: `One observed transaction with its retained detail (legs, integrity stages, decode state). Error when it is not recorded here, which is not proof that it does not exist on chain.${twin('get_transaction')}`,
      input: HashParams,
      output: TransactionDetailSchema,
      pathParams: ['hash'],
      run: async (a) => renderedOnce(await transactionDetail(ctx.store, a.hash, ctx.primary)),
    }),
    tool({
      name: 'get_metrics',
      title: 'Transaction metrics',
      description: `Aggregates (counts, fees, nominal listed-USD volume) over the latest 50,000 observations matching the filters.${twin('get_metrics')}`,
      input: FiltersQuery,
      output: MetricsSchema,
      budget: { of: heavy },
      run: async (a) => freshJson(await metrics(ctx.store, a)),
    }),
    tool({
      name: 'get_metrics_series',
      title: 'Transaction metrics per hour or day',
      description: `Metrics per UTC-aligned hour or day bucket over [since, until), split by execution and by listed token, and with split=protocol by protocol (mpp, x402, unknown).${twin('get_metrics_series')}`,
      input: SeriesQuery,
      output: MetricsSeriesSchema,
      budget: { of: heavy },
      run: async (a) => freshJson(await metricsSeries(ctx.store, a)),
    }),
    tool({
      name: 'get_coverage',
      title: 'Recorded block ranges',
      description: `Recorded block-height intervals; gaps are unknown, not zero activity.${twin('get_coverage')}`,
      input: NoQuery,
      output: CoverageSchema,
      run: async () => freshJson(await coverage(ctx.store)),
    }),
    tool({
      name: 'get_status',
      title: 'Collection status',
      description: `Source freshness, collector state, lag and coverage summary, with the manifest's URL.${twin('get_status')}`,
      input: NoQuery,
      output: StatusSchema,
      run: async (_a, { req }) => freshJson({ ...(await chainStatus(ctx)), manifest: `${publicBaseUrl(ctx.config, req)}${MANIFEST_PATH}` }),
    }),
    tool({
      name: 'get_rankings',
      title: 'Rankings of services, recipients or payers',
      description: `Services, recipient addresses or payer addresses ranked by nominal received (listed USD, not revenue), payments or distinct payers over whole UTC days (default the last 30), with the collected part of the window.${twin('get_rankings')}`,
      input: RankingsToolArgs,
      output: RankingSchema,
      pathParams: ['kind'],
      budget: { of: heavy },
      run: async ({ kind, ...q }) => renderedOnce(await rankings(ctx.store, kind, q)),
    }),
    tool({
      name: 'get_service_payments',
      title: 'Payments of a service or provider',
      description: `Payments attributed to one service (service_id) or to every service of a provider (provider): counts per attribution method and protocol, distinct payers and clients, nominal received (listed USD, not revenue), over whole UTC days (default the last 30), with the collected part of the window.${twin('get_service_payments')}`,
      input: PaymentsQuery,
      output: PaymentsAnswerSchema,
      run: async (a) => freshJson(await payments(ctx.store, a)),
    }),
  ]);
}

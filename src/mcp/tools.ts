/**
 * The read-only MCP tools (docs/intelligence.md): search_providers, get_provider, get_intelligence_status,
 * get_service_offers, get_service_changes, get_service_history. Each takes the input shape of its HTTP twin and
 * calls the same query function (src/intel/queries.ts), so tool and route answer alike. Results come back as
 * structuredContent (validated against the same response schema the OpenAPI document shows) plus a JSON text copy.
 * Invalid arguments and errors the catalogue calls the caller's fault or retryable (src/domain/error-codes.ts: the
 * routes' 400, 404, 429 and 503) become tool errors (isError) with the same message.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { z } from 'zod';
import type { AppContext } from '../context.js';
import { ERROR_CODES } from '../domain/error-codes.js';
import { PaywatchError } from '../domain/errors.js';
import { renderedOnce } from '../http/reply.js';
import { getProvider, intelligenceStatus, listChanges, listHistory, listOffers, searchProviders } from '../intel/queries.js';
import {
  ChangesResponse,
  HistoryResponse,
  IntelligenceStatusResponse,
  IntelQuery,
  NoParams,
  OffersResponse,
  ProviderParams,
  ProviderProfileResponse,
  ProvidersQuery,
  ProvidersResponse,
} from '../intel/schemas.js';

/** The tools and their HTTP twins, for documentation (OpenAPI description, README). */
export const MCP_TOOLS = {
  search_providers: 'GET /api/providers',
  get_provider: 'GET /api/providers/{domain}',
  get_intelligence_status: 'GET /api/intelligence/status',
  get_service_offers: 'GET /api/intelligence/offers',
  get_service_changes: 'GET /api/intelligence/changes',
  get_service_history: 'GET /api/intelligence/history',
} as const;

/**
 * A tool answer: the body as structured content and as text, serialised once per reused answer (renderedOnce: the
 * same rendering the HTTP routes send for the same answer object).
 */
function ok(body: object): CallToolResult {
  return { content: [{ type: 'text', text: renderedOnce(body).text }], structuredContent: body as Record<string, unknown> };
}

/**
 * True when `e`'s message is an answer for the caller (src/domain/error-codes.ts): the caller is at fault, or the
 * same call may succeed later (a limit, an outage). Anything else is an internal failure.
 */
function answersCaller(e: unknown): e is PaywatchError {
  if (!(e instanceof PaywatchError)) return false;
  const info = ERROR_CODES[e.code];
  return info.callerFault || info.retryable === true;
}

/**
 * Runs `fn`; an error that answers the caller (answersCaller) becomes a tool error (`isError`) carrying the route's
 * message; anything else is rethrown (the SDK reports it as a tool error too, without internals beyond the message).
 */
async function answer(fn: () => Promise<object>): Promise<CallToolResult> {
  try {
    return ok(await fn());
  } catch (e) {
    if (answersCaller(e)) return { content: [{ type: 'text', text: JSON.stringify({ error: e.message }) }], isError: true };
    throw e;
  }
}

/**
 * One JSON Schema validator for every server: the SDK otherwise builds a new Ajv instance (with its formats) per
 * McpServer, and the stateless endpoint makes a server per request. It keeps no per-request state.
 */
const sharedValidator = new AjvJsonSchemaValidator();

/**
 * Creates an MCP server with the six read-only tools over `ctx.store`. Cheap (the validator is shared): the
 * stateless endpoint makes one per request.
 */
export function createMcpServer(ctx: AppContext): McpServer {
  const server = new McpServer(
    { name: 'paywatch', version: '1.0.0' },
    { capabilities: { tools: {} }, jsonSchemaValidator: sharedValidator },
  );
  const opts = () => ({ staleAfterDays: ctx.config.intelStaleDays });
  const readOnly = { readOnlyHint: true, openWorldHint: false };
  const reg = <I extends z.ZodObject, O extends z.ZodObject>(
    name: keyof typeof MCP_TOOLS,
    description: string,
    input: I,
    output: O,
    run: (args: z.output<I>) => Promise<object>,
  ) =>
    server.registerTool(
      name,
      { description: `${description} Same data as ${MCP_TOOLS[name]}.`, inputSchema: input, outputSchema: output, annotations: readOnly },
      // The SDK has already parsed the arguments with `input` (so defaults and transforms are applied).
      ((args: z.output<I>) => answer(() => run(args))) as never,
    );

  reg(
    'search_providers',
    'Search provider listings with their latest dated endpoint checks, advertised offers and source freshness. Stale services are hidden unless include_stale is true.',
    ProvidersQuery,
    ProvidersResponse,
    (a) => searchProviders(ctx.store, a, opts()),
  );
  reg(
    'get_provider',
    'One provider profile: services, advertised offers and recent dated checks. Error when the provider is not listed.',
    ProviderParams,
    ProviderProfileResponse,
    (a) => getProvider(ctx.store, a.domain, opts()),
  );
  reg(
    'get_intelligence_status',
    'Collection health, source freshness, history coverage and archive verification results.',
    NoParams,
    IntelligenceStatusResponse,
    () => intelligenceStatus(ctx.store, opts()),
  );
  reg(
    'get_service_offers',
    'Retained advertised payment options (exact atomic amounts, snapshot ids, evidence hashes), newest first.',
    IntelQuery,
    OffersResponse,
    (a) => listOffers(ctx.store, a, opts()),
  );
  reg(
    'get_service_changes',
    'Dated changes of offers and endpoint status, newest first; each cites the snapshots it compares.',
    IntelQuery,
    ChangesResponse,
    (a) => listChanges(ctx.store, a, opts()),
  );
  reg(
    'get_service_history',
    'Dated endpoint checks with the offers each advertised, newest first; domain or service_id is required.',
    IntelQuery,
    HistoryResponse,
    (a) => listHistory(ctx.store, a, opts()),
  );
  return server;
}

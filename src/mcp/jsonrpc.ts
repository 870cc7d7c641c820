/**
 * A stateless MCP server over Streamable HTTP in JSON-response mode (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http),
 * answering `initialize`, `ping`, `tools/list`, `tools/call` and notifications from a tool table built once per
 * process. The SDK's server would make a server, a transport and every tool's JSON Schema per request and validate
 * each answer against its output schema on every call (bench/results/mcp.md): here the table, its JSON Schemas and
 * the `tools/list` and `initialize` answers are rendered once, and a tool answer's JSON text is remembered with the
 * answer object (a remembered page, src/http/reply.ts renderedOnce), so a repeated call costs a lookup and a string
 * join. test/mcp/ checks every answer against the SDK's own zod schemas (`@modelcontextprotocol/sdk/types.js`) and
 * against each tool's output schema instead of doing it per call.
 *
 * Rules kept from the SDK's transport (`StreamableHTTPServerTransport`): POST only; Accept must name both
 * application/json and text/event-stream (406); an unsupported `Mcp-Protocol-Version` header is 400; a batch holds at
 * most MAX_BATCH messages (400, -32600); a POST of notifications only is 202 with no body. Errors (JSON-RPC 2.0
 * section 5.1): an empty batch or a message that is not a request is -32600; an unknown method -32601; a malformed
 * `tools/call` (no params, a name that is not a string, arguments that are not an object) or an unknown tool -32602.
 * A tool's own arguments that break its rules are a tool error (`isError: true`) whose text is the HTTP twin's
 * `{error}` body, word for word.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ERROR_CODES } from '../domain/error-codes.js';
import { LimitExceeded, PaywatchError, unknownParameters } from '../domain/errors.js';
import type { HeavyBudget } from '../limits/heavy-budget.js';
import { LIMITS } from '../limits/index.js';
import { plainIssueMessage } from '../domain/query-params.js';
import { type RenderedJson, JSON_TYPE, sendRenderedJson } from '../http/reply.js';
import { COMPRESS_THRESHOLD, negotiateSpliced } from '../http/compression.js';
import { brotliOf, brotliPart, MAX_BROTLI_LITERAL_BYTES } from '../http/spliced-brotli.js';
import { type DeflatedPart, deflatePart, zlibOf, MAX_LITERAL_BYTES } from '../http/spliced-deflate.js';

/** Most messages in one JSON-RPC batch (the SDK transport's MAX_BATCH_SIZE; LIMITS.mcpBatch). */
export const MAX_BATCH = LIMITS.mcpBatch.value;

/** A tool answer's JSON text: structuredContent, and (as MCP 2025-06-18 advises) the same JSON as a text block. */
export interface ToolJson {
  readonly text: string;
  /** A validator of `text` made with it (a remembered answer's ETag, src/http/reply.ts), when there is one. */
  readonly etag?: string;
}

/** What a tool's `run` receives beside its parsed arguments. */
export interface ToolCall {
  /** The HTTP request that carried the call (its client, headers, base URL). */
  readonly req: FastifyRequest;
}

/** One tool: its description for `tools/list`, its argument and answer shapes (zod), and how it answers. */
export interface ToolDef<I extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** Parses the arguments (the HTTP twin's query and path schema); its input side is the advertised inputSchema. */
  readonly input: I;
  /** The HTTP twin's 200 schema; its output side is the advertised outputSchema. Not checked per call (tests do). */
  readonly output: z.ZodType;
  /** Arguments that are path parameters of the HTTP twin (so an error names them as its twin does). */
  readonly pathParams?: readonly string[];
  /** Where the twin takes its other arguments: the query (default) or a JSON body (its errors name a body member). */
  readonly argsIn?: 'query' | 'body';
  /** The budget a call takes one unit of while it runs, when `heavy(args)` (default: always); null: none. */
  readonly budget?: { readonly of: HeavyBudget; readonly heavy?: (args: z.output<I>) => boolean } | null;
  /** Answers the call: the JSON text of the HTTP twin's 200 body. Throws PaywatchError as the twin does. */
  readonly run: (args: z.output<I>, call: ToolCall) => Promise<ToolJson>;
}

/** Makes a ToolDef with its argument types checked against `input` (a ToolDef[] erases them). */
export function tool<I extends z.ZodType>(def: ToolDef<I>): ToolDef {
  return def as unknown as ToolDef;
}

/** The JSON text of an object answer made for this call only (not remembered). */
export const freshJson = (body: unknown): ToolJson => ({ text: JSON.stringify(body) });

/** Server identity and the words a client shows its model, for `initialize`. */
export interface ServerInfo {
  readonly name: string;
  readonly title: string;
  readonly version: string;
  readonly instructions: string;
}

/** The tool table and every answer that does not depend on the call, built once per process. */
export class ToolTable {
  readonly byName: ReadonlyMap<string, ToolDef>;
  /** The `tools/list` result, JSON text. */
  readonly listResult: string;
  /** A validator of listResult. */
  readonly listTag: string;
  /** The `tools/list` result as an object (documentation, tests). */
  readonly list: { tools: Record<string, unknown>[] };
  private readonly initResults = new Map<string, string>();
  /** Whole answers of the fixed results by result and request id, rendered and compressed once (fixedAnswer). */
  private readonly fixedAnswers = new Map<string, RenderedJson>();

  /**
   * @param tools the tools, in the order `tools/list` shows them
   * @throws Error when two tools share a name or a schema cannot be expressed in JSON Schema (at startup)
   */
  constructor(
    readonly info: ServerInfo,
    tools: readonly ToolDef[],
  ) {
    const byName = new Map<string, ToolDef>();
    for (const t of tools) {
      if (byName.has(t.name)) throw new Error(`duplicate MCP tool ${t.name}`);
      byName.set(t.name, t);
    }
    this.byName = byName;
    this.list = {
      tools: tools.map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: jsonSchemaOf(t.input, 'input'),
        outputSchema: jsonSchemaOf(t.output, 'output'),
        annotations: { title: t.title, readOnlyHint: true, openWorldHint: false },
      })),
    };
    this.listResult = JSON.stringify(this.list);
    this.listTag = sha1(this.listResult);
    for (const v of SUPPORTED_PROTOCOL_VERSIONS) this.initResultOf(v);
  }

  /** The `initialize` result for a client asking for `requested` (its own version when supported, else the latest). */
  initResult(requested: unknown): string {
    return this.initResultOf(initVersion(requested));
  }

  /**
   * The whole answer (`{"jsonrpc","id","result"}`) of a fixed result for one request id, with its ETag and its
   * compressed forms made on first use: a new client's `initialize` and `tools/list` (67 kB of JSON Schema) would
   * otherwise be compressed on every request, most of their cost (bench/results/mcp-init.md). Clients number
   * their requests from 0 or 1, so few ids recur; at most FIXED_ANSWERS are kept, the oldest dropped first.
   * @param key which fixed result (`list`, or `init:` and the protocol version)
   * @returns null for an id too long to key by (answered the ordinary way)
   */
  fixedAnswer(key: string, answer: Answer): RenderedJson | null {
    if (answer.idText.length > FIXED_ID_CHARS) return null;
    const k = `${key}|${answer.idText}`;
    let r = this.fixedAnswers.get(k);
    if (r === undefined) {
      if (this.fixedAnswers.size >= FIXED_ANSWERS) this.fixedAnswers.delete(this.fixedAnswers.keys().next().value!);
      r = { text: answer.text, etag: answerEtag(false, [answer.tag ?? sha1(answer.text)]), encoded: {} };
      this.fixedAnswers.set(k, r);
    }
    return r;
  }

  private initResultOf(version: string): string {
    let r = this.initResults.get(version);
    if (r === undefined) {
      const { instructions, ...serverInfo } = this.info;
      // `tools: {}`: no listChanged, which a stateless server could never send.
      r = JSON.stringify({ protocolVersion: version, capabilities: { tools: {} }, serverInfo, instructions });
      this.initResults.set(version, r);
    }
    return r;
  }
}

/** Fixed answers kept per table (a handful of ids for each of `tools/list` and the protocol versions' `initialize`). */
const FIXED_ANSWERS = 64;
/** Longest id text a fixed answer is kept for. */
const FIXED_ID_CHARS = 40;

/** The protocol version an `initialize` asking for `requested` is answered with. */
const initVersion = (requested: unknown): string =>
  typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;

const sha1 = (text: string) => createHash('sha1').update(text).digest('base64');

/** The weak ETag of a POST's answers, from their validators (and whether they were a batch). */
const answerEtag = (batch: boolean, tags: readonly string[]) => `W/"${sha1(`${batch ? 'b' : 's'}|${tags.join('|')}`)}"`;

/** JSON Schema (draft-07, what MCP clients read) of one side of a zod schema; root `$schema` dropped. */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

// ---- one POST --------------------------------------------------------------------------------------------------

/** JSON-RPC 2.0 error codes (section 5.1). */
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

type Id = string | number | null;

/** One answer of a POST: its JSON text, and a validator of it when its result has one (else null). */
export interface Answer {
  text: string;
  tag: string | null;
  /** The id as JSON text. */
  idText: string;
  /** Which fixed result it carries (ToolTable.fixedAnswer), if any. */
  fixed?: string;
  /** The remembered tool result it wraps, if any (its bytes made once, sent with the id: sendRemembered). */
  remembered?: CallResult;
}

const rpcError = (id: Id, code: number, message: string): Answer => {
  const idText = JSON.stringify(id);
  return { text: `{"jsonrpc":"2.0","id":${idText},"error":${JSON.stringify({ code, message })}}`, tag: null, idText };
};

/** A result answer; `tag` identifies `result`'s text (the answer's text is a function of it and the id). */
function rpcResult(id: Id, result: string, tag: string | null = null, fixed?: string): Answer {
  const idText = JSON.stringify(id);
  return { text: `{"jsonrpc":"2.0","id":${idText},"result":${result}}`, tag: tag === null ? null : `${tag}:${idText}`, idText, fixed };
}

/** A `tools/call` result's JSON text, and its UTF-8 and compressed forms once a client asked for them. */
interface CallResult {
  readonly text: string;
  /** The remembered answer's validator (the SHA-1 in its ETag), which the call's ETag is made from. */
  readonly tag: string;
  /** `text` in UTF-8, made on the first identity answer (a string would be flattened and encoded on every send). */
  bytes: Buffer | null;
  deflated: DeflatedPart | null;
  /** The brotli opening `{"jsonrpc":"2.0","result":…,"id":` (brotli's literal can only close a stream). */
  brotli: Buffer | null;
}

/** The `tools/call` result's JSON text of an answer: structuredContent, and the same JSON as a text block. */
const resultText = (answer: ToolJson) =>
  `{"content":[{"type":"text","text":${JSON.stringify(answer.text)}}],"structuredContent":${answer.text}}`;

/** `tools/call` results, remembered with the answer they render (a remembered answer is the same object). */
const callResults = new WeakMap<ToolJson, CallResult>();

/** The `tools/call` result for a remembered answer: structuredContent and its text copy, joined once per answer. */
function callResult(answer: ToolJson & { etag: string }): CallResult {
  let r = callResults.get(answer);
  if (r === undefined) {
    r = {
      text: resultText(answer),
      // renderJson's `W/"<base64 SHA-1>"` (src/http/reply.ts): base64 characters are all valid in an entity tag.
      tag: answer.etag.replace(/^W\/"|"$/g, ''),
      bytes: null,
      deflated: null,
      brotli: null,
    };
    callResults.set(answer, r);
  }
  return r;
}

/**
 * The weak ETag of a single remembered tool answer, made without hashing per call: the remembered answer's SHA-1
 * and the request id (its digits, or a SHA-1 of any other id), a function of exactly what the answer's bytes are.
 * A batch's ETag hashes its parts' tags instead (answerEtag); the two forms cannot collide (a dot only here).
 */
function rememberedEtag(r: CallResult, idText: string): string {
  return `W/"${r.tag}.${PLAIN_ID.test(idText) ? idText : sha1(idText)}"`;
}

/** An id whose JSON text is valid in an entity tag as it is (an integer of at most 16 digits). */
const PLAIN_ID = /^-?\d{1,16}$/;

/** The close of an answer whose id comes before its result. */
const CLOSE = Buffer.from('}');

/**
 * Sends a remembered tool result's answer without rendering, hashing or compressing it again: `br`, the result
 * compressed once after the opening `{"jsonrpc":"2.0","result":` and the id as the closing literal
 * (src/http/spliced-brotli.ts; members in another order than the identity answer, the same JSON); `deflate`, the
 * result's DEFLATE blocks between the opening with the id and the closing brace, byte for byte the identity answer
 * (src/http/spliced-deflate.ts); any other, the identity answer from the result's UTF-8 bytes made once (gzip alone
 * is still compressed per call by @fastify/compress, which takes a Buffer as it takes a string).
 */
function sendRemembered(reply: FastifyReply, answer: Answer & { remembered: CallResult }): FastifyReply {
  const r = answer.remembered;
  const etag = rememberedEtag(r, answer.idText);
  const accepted = reply.request.headers['accept-encoding'];
  // A long id would not fit one literal block: such an answer is sent uncompressed-spliced, as any other encoding is.
  const encoding =
    accepted === undefined ||
    answer.idText.length > Math.min(MAX_LITERAL_BYTES, MAX_BROTLI_LITERAL_BYTES) / 4 ||
    r.text.length < COMPRESS_THRESHOLD
      ? null
      : negotiateSpliced(accepted);
  reply.code(200).header('etag', etag).type(JSON_TYPE);
  if (encoding === null) {
    r.bytes ??= Buffer.from(r.text);
    return reply.send(Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${answer.idText},"result":`), r.bytes, CLOSE]));
  }
  let body: Buffer;
  if (encoding === 'br') {
    r.brotli ??= brotliPart(`{"jsonrpc":"2.0","result":${r.text},"id":`);
    body = brotliOf(r.brotli, `${answer.idText}}`);
  } else {
    r.deflated ??= deflatePart(r.text);
    body = zlibOf([`{"jsonrpc":"2.0","id":${answer.idText},"result":`, r.deflated, '}']);
  }
  // With Content-Encoding set, @fastify/compress leaves the body as it is (Vary comes from src/http/compression.ts).
  return reply.header('content-encoding', encoding).send(body);
}

/** A tool error: the HTTP twin's `{error}` body as its text. */
const toolError = (message: string) =>
  JSON.stringify({ content: [{ type: 'text', text: JSON.stringify({ error: message }) }], isError: true });

/**
 * The HTTP twin's sentence for a failed parse (src/http/errors.ts describeValidation, from the same zod issue):
 * `invalid query parameter 'limit': …`, `unknown query parameter 'x'`, `invalid path parameter 'hash': …`,
 * `invalid body member 'url': …`.
 * @param pathParams arguments that are the twin's path parameters
 * @param argsIn where the twin takes the others
 */
export function argumentsError(
  issues: readonly z.core.$ZodIssue[],
  pathParams: readonly string[] = [],
  argsIn: 'query' | 'body' = 'query',
): string {
  const first = issues[0];
  const rest = argsIn === 'body' ? 'body member' : 'query parameter';
  // Every twin takes its extra arguments in the query or body (a path-parameter route's query takes none).
  if (first?.code === 'unrecognized_keys' && first.keys.length) return unknownParameters(rest, first.keys);
  const path = (first?.path ?? []).map(String).join('.');
  const message = first?.message ?? 'invalid value';
  if (!path) return `invalid ${argsIn === 'body' ? 'body' : 'querystring'}: ${message}`;
  const kind = pathParams.includes(String(first?.path[0])) ? 'path parameter' : rest;
  return `invalid ${kind} '${path}': ${message}`;
}

/** True when `e`'s message is for the caller (src/domain/error-codes.ts): its fault, or a retryable refusal. */
function answersCaller(e: unknown): e is PaywatchError {
  if (!(e instanceof PaywatchError)) return false;
  const info = ERROR_CODES[e.code];
  return info.callerFault || info.retryable === true;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How a listener counts messages beyond the first of a batch against its request limit. */
export type CountExtra = (req: FastifyRequest, extra: number) => Promise<void>;

/** One endpoint: a tool table and how its listener counts requests. */
export interface McpEndpoint {
  readonly table: ToolTable;
  /**
   * Counts `extra` more requests for `req`'s client (a batch's messages beyond the first, which the listener's
   * rate limit counted already).
   * @throws LimitExceeded (429) when the client is beyond its limit
   */
  readonly countExtra: CountExtra;
}

/**
 * Answers one POST to an MCP endpoint (its body already parsed as JSON by the listener).
 * @throws LimitExceeded (429 with Retry-After, through the listener's error handler) when a batch takes the client
 *   beyond its request limit
 */
export async function answerMcpPost(endpoint: McpEndpoint, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
    return sendRpcFailure(reply, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
  const version = req.headers['mcp-protocol-version'];
  if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
    return sendRpcFailure(
      reply,
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version.slice(0, 40)} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    );
  const body = req.body;
  const batch = Array.isArray(body);
  const messages: unknown[] = batch ? body : [body];
  if (messages.length === 0) return sendRpcFailure(reply, 400, INVALID_REQUEST, 'Invalid Request: empty batch');
  if (messages.length > MAX_BATCH)
    return sendRpcFailure(reply, 400, INVALID_REQUEST, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`);
  // Every message is a request against the client's limit (the listener's hook counted the POST as the first).
  if (messages.length > 1) await endpoint.countExtra(req, messages.length - 1);

  const answers: Answer[] = [];
  // One after another: a batch is one client's queue, never a fan-out of parallel work.
  for (const m of messages) {
    const a = await answerMessage(endpoint.table, m, req);
    if (a !== null) answers.push(a);
  }
  if (answers.length === 0) return reply.code(202).send();
  if (!batch && answers[0].fixed !== undefined) {
    const fixed = endpoint.table.fixedAnswer(answers[0].fixed, answers[0]);
    if (fixed !== null) return sendRenderedJson(reply.code(200), fixed);
  }
  const first = answers[0];
  if (!batch && first.remembered !== undefined) return sendRemembered(reply, first as Answer & { remembered: CallResult });
  // The ETag plugin would hash every answer (a remembered tool answer is 2× its twin's bytes): when every part has
  // a validator already, the ETag is made from those and the ids instead.
  const etag = answers.every((a) => a.tag !== null)
    ? answerEtag(
        batch,
        answers.map((a) => a.tag!),
      )
    : null;
  const text = batch ? `[${answers.map((a) => a.text).join(',')}]` : answers[0].text;
  if (etag !== null) reply.header('etag', etag);
  return reply.code(200).type('application/json').send(text);
}

function sendRpcFailure(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply
    .code(status)
    .type('application/json')
    .send(rpcError(null, code, message).text);
}

/** The answer to one message, or null for a notification or a response (nothing to answer). */
async function answerMessage(table: ToolTable, m: unknown, req: FastifyRequest): Promise<Answer | null> {
  if (!isObject(m)) return rpcError(null, INVALID_REQUEST, 'Invalid Request: a message is a JSON object');
  const id = m.id;
  const validId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  if (m.jsonrpc !== '2.0' || typeof m.method !== 'string') {
    // A response from the client (result or error, no method) needs no answer.
    if (m.jsonrpc === '2.0' && m.method === undefined && validId && ('result' in m || 'error' in m)) return null;
    return rpcError(validId ? (id as Id) : null, INVALID_REQUEST, 'Invalid Request: expected jsonrpc "2.0" and a method name');
  }
  if (id === undefined) return null; // a notification
  if (!validId) return rpcError(null, INVALID_REQUEST, 'Invalid Request: id must be a string or a number');
  const rid = id as string | number;
  const params = m.params;
  if (params !== undefined && !isObject(params)) return rpcError(rid, INVALID_PARAMS, 'Invalid params: params must be an object');
  switch (m.method) {
    case 'initialize': {
      const version = initVersion(params?.protocolVersion);
      return rpcResult(rid, table.initResult(version), null, `init:${version}`);
    }
    case 'ping':
      return rpcResult(rid, '{}');
    case 'tools/list':
      return rpcResult(rid, table.listResult, table.listTag, 'list');
    case 'tools/call':
      return callTool(table, rid, params, req);
    default:
      return rpcError(rid, METHOD_NOT_FOUND, `Method not found: ${m.method.slice(0, 60)}`);
  }
}

/** Each tool's parse of no arguments (its defaults), made once: the schemas are pure functions of their input. */
const noArguments = new WeakMap<ToolDef, z.ZodSafeParseResult<unknown>>();

/**
 * Parses a call's arguments with the tool's schema and the plain error map of the HTTP listeners
 * (src/http/validation.ts), so a tool's sentence is its twin's. A call without arguments (a default page, the
 * commonest call) takes the parse made once, its data copied so a tool cannot change the remembered one.
 */
function parseArguments(t: ToolDef, args: Record<string, unknown>): z.ZodSafeParseResult<unknown> {
  const parse = () => t.input.safeParse(args, { error: (iss) => plainIssueMessage(iss as Parameters<typeof plainIssueMessage>[0]) });
  for (const _ in args) return parse();
  let r = noArguments.get(t);
  if (r === undefined) {
    r = parse();
    noArguments.set(t, r);
  }
  return r.success ? { success: true, data: { ...(r.data as object) } } : r;
}

async function callTool(table: ToolTable, id: string | number, params: Record<string, unknown> | undefined, req: FastifyRequest) {
  if (params === undefined) return rpcError(id, INVALID_PARAMS, 'Invalid params: tools/call needs params with a tool name');
  if (typeof params.name !== 'string') return rpcError(id, INVALID_PARAMS, 'Invalid params: the tool name must be a string');
  const args = params.arguments ?? {};
  if (!isObject(args)) return rpcError(id, INVALID_PARAMS, 'Invalid params: arguments must be an object');
  const t = table.byName.get(params.name);
  if (!t) return rpcError(id, INVALID_PARAMS, `Invalid params: unknown tool '${params.name.slice(0, 60)}'; tools/list names them`);
  const parsed = parseArguments(t, args);
  if (!parsed.success) return rpcResult(id, toolError(argumentsError(parsed.error.issues, t.pathParams, t.argsIn)));
  let release: (() => void) | null = null;
  try {
    if (t.budget && (t.budget.heavy?.(parsed.data) ?? true)) release = t.budget.of.acquire(req);
    const answer = await t.run(parsed.data, { req });
    if (answer.etag === undefined) return rpcResult(id, resultText(answer));
    const result = callResult(answer as ToolJson & { etag: string });
    return { ...rpcResult(id, result.text, `${t.name}:${answer.etag}`), remembered: result };
  } catch (e) {
    if (answersCaller(e)) return rpcResult(id, toolError(e.message));
    req.log.error({ err: e, tool: t.name }, 'mcp tool failed');
    return rpcResult(id, toolError('internal error'));
  } finally {
    release?.();
  }
}

/**
 * Counts a batch's extra messages in the listener's own request limit (@fastify/rate-limit's `createRateLimit()`
 * with no options increments the listener-wide counter the route's hook already counted the POST in, Redis or
 * memory: src/limits/register.ts). Without the plugin (an app built without a request limit) nothing is counted.
 * @param limit which listener limit the counter is (its unit goes into the 429 sentence)
 */
export function listenerRequestCounter(app: FastifyInstance, limit: 'publicRequests' | 'verifyRequests'): CountExtra {
  if (typeof app.createRateLimit !== 'function') return async () => undefined;
  const hit = app.createRateLimit();
  return async (req, extra) => {
    // In parallel: with Redis, the counts of one turn go out in one pipelined write.
    const counts = await Promise.all(Array.from({ length: extra }, () => hit(req)));
    const over = counts.find((c) => !c.isAllowed && c.isExceeded);
    if (over && !over.isAllowed) {
      const s = Math.max(1, over.ttlInSeconds);
      throw new LimitExceeded(`rate limited: at most ${over.max} ${LIMITS[limit].unit}; retry after ${s} s`, { retryAfterSeconds: s });
    }
  };
}

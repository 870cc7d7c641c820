/**
 * The trust check as MCP tools: POST {verify_url}/v1/mcp on the trust-check listener (Streamable HTTP,
 * stateless, src/mcp/jsonrpc.ts), tools `check_url` and `check_pay_to` answering the verdict objects of POST
 * /v1/check and POST /v1/check/pay-to. Access is
 * the same API key (`Authorization: Bearer <API_KEY>` on the POST), metered the same way (./access.ts
 * checkWithKey: a reservation committed only on success) and limited the same way (the listener's request limit,
 * counting each batch message; the slots of checks in flight, global and per client; failed key attempts). x402 payment inside MCP
 * is not offered: without a key the tool answers an error naming the free key and x402 on /v1/check.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Unauthenticated } from '../domain/errors.js';
import type { CheckSlots } from '../limits/check-slots.js';
import type { FailedAuthLimiter } from '../limits/failed-auth.js';
import { clientKey } from '../limits/client-key.js';
import { answerMcpPost, freshJson, listenerRequestCounter, MAX_BATCH, tool, ToolTable } from '../mcp/jsonrpc.js';
import { addStatelessRefusals } from '../mcp/route.js';
import { TRUST_MCP_TOOLS } from '../mcp/tools.js';
import type { Store } from '../store/db.js';
import { type CheckRun, checkWithKey } from './access.js';
import { runCheck } from './check.js';
import type { GatherOptions } from './gather.js';
import { apiKeyFromHeader } from './keys.js';
import { CHECK_PRICE_DOLLARS, FREE_MONTHLY_CHECKS } from './metering.js';
import { CheckAnswer, CheckRequest, PayToCheckAnswer, PayToCheckRequest } from './schemas.js';
import { DEFAULT_PAY_TO_NETWORK, runPayToCheck } from './pay-to.js';

/** What /v1/mcp shares with /v1/check on the same listener. */
export interface TrustMcpDeps {
  store: Store;
  gather: Omit<GatherOptions, 'now'>;
  /** The listener's slots of checks in flight, global and per client (LIMITS.checksInFlight, checksPerClient). */
  slots: CheckSlots;
  /** Days after which an unused free key expires (PAYWATCH_VERIFY_KEY_IDLE_DAYS). */
  keyIdleDays: number;
  /** Failed key attempts per client (LIMITS.failedAuthentications). */
  keyFailures: FailedAuthLimiter;
  /** Whether /v1/check takes x402 payment without a key (the no-key error names it only then). */
  x402: boolean;
  version: string;
}

/**
 * The sentence a keyless call answers: both ways to pay when x402 is on, else the free key.
 */
export function missingKeyMessage(x402: boolean): string {
  const key = `send Authorization: Bearer <API_KEY> with the MCP request (a free key: POST /v1/keys, ${FREE_MONTHLY_CHECKS} successful checks per UTC month)`;
  return x402
    ? `missing API key: ${key}, or pay ${CHECK_PRICE_DOLLARS} dollars per call with x402 on POST /v1/check (x402 inside MCP is not offered)`
    : `missing API key: ${key}`;
}

/** The trust-check tool table (built once per listener). */
export function trustToolTable(d: TrustMcpDeps): ToolTable {
  /** A tool call's check: the request's key (else the no-key error), a slot of checks in flight, metered as on /v1/check. */
  const keyed = async (req: FastifyRequest, run: CheckRun) => {
    const client = clientKey(req.ip);
    const key = await apiKeyFromHeader(d.store, req.headers.authorization, d.keyFailures, client, d.keyIdleDays);
    if (key === null) throw new Unauthenticated(missingKeyMessage(d.x402));
    const release = d.slots.take([`addr:${client}`, `key:${key.id}`]);
    try {
      return freshJson((await checkWithKey(d.store, key, run)).body);
    } finally {
      release();
    }
  };
  return new ToolTable(
    {
      name: 'paywatch-trust-check',
      title: 'paywatch trust check',
      version: d.version,
      instructions:
        'Should an agent pay this URL? check_url fetches the URL once without paying and answers a verdict (pay, caution, do_not_pay) with reasons, the offers seen now and the signals used: the same answer as POST /v1/check. check_pay_to answers the same verdict shape for a payee address alone, from chain history (POST /v1/check/pay-to). Send Authorization: Bearer <API_KEY> on every request; each successful check counts against the key as on /v1/check. Scores describe evidence, not honesty or task success.',
    },
    [
      tool({
        name: 'check_url',
        title: 'Check whether to pay a URL',
        description: `Fetches the URL once without paying and answers with a verdict (weighed against the optional policy: max_amount in dollars, assets, networks, protocols), reasons, the offers seen now and the signals used. A do_not_pay verdict is a successful (metered) check; a validation error, a refused address or a failure of ours is not metered. Same answer as ${TRUST_MCP_TOOLS.check_url}, with the same API key.`,
        input: CheckRequest,
        output: CheckAnswer,
        argsIn: 'body',
        run: (a, { req }) => keyed(req, (who) => runCheck(a.url, { ...d.gather, now: new Date() }, who, a.policy ?? null)),
      }),
      tool({
        name: 'check_pay_to',
        title: 'Check a payee alone',
        description: `A verdict on a payTo address from our chain observations and intel history alone (nothing is fetched): observed inbound payments in listed tokens and their age, listed services that advertise or advertised it, recent payTo changes that moved a service to it. Metered like check_url. Same answer as ${TRUST_MCP_TOOLS.check_pay_to}, with the same API key.`,
        input: PayToCheckRequest,
        output: PayToCheckAnswer,
        argsIn: 'body',
        run: (a, { req }) =>
          keyed(req, (who) =>
            runPayToCheck(
              a.pay_to,
              a.network ?? DEFAULT_PAY_TO_NETWORK,
              { store: d.store, changeWindowDays: d.gather.changeWindowDays, now: new Date() },
              who,
            ),
          ),
      }),
    ],
  );
}

/** Registers POST /v1/mcp (and its 405s) on the trust-check listener `app`. */
export function registerTrustMcp(app: FastifyInstance, d: TrustMcpDeps): void {
  const endpoint = { table: trustToolTable(d), countExtra: listenerRequestCounter(app, 'verifyRequests') };
  app.post(
    '/v1/mcp',
    {
      schema: {
        tags: ['trust-check'],
        summary: 'The trust check as MCP tools (check_url, check_pay_to)',
        description: `Model Context Protocol server (Streamable HTTP, stateless). POST JSON-RPC with Accept: application/json, text/event-stream; a batch holds at most ${MAX_BATCH} messages, each counted as one request against the rate limit. Tool check_url (url, policy) answers what POST /v1/check answers and check_pay_to (pay_to, network) what POST /v1/check/pay-to answers, both authenticated by the same Authorization: Bearer <API_KEY> header on the POST, metered and limited identically (initialize and tools/list need no key). Without a key the tool answers an error: get a free key (POST /v1/keys) or pay per call with x402 on POST /v1/check; x402 payment inside MCP is not offered.`,
        security: [{ apiKey: [] }, {}],
      },
    },
    (req, reply) => answerMcpPost(endpoint, req, reply),
  );
  addStatelessRefusals(app, '/v1/mcp');
}

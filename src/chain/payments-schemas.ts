/**
 * Wire schemas of the payments analytics (docs/payments.md): the rankings' query and answer, and a service's
 * `payments` summary. Request schemas are the ones every face (HTTP routes, MCP tools) parses with.
 */
import { z } from 'zod';
import { MAX_UNIX_SECONDS } from '../domain/filters.js';
import { enumParam, GIVEN_ONCE, integerParam, sinceBeforeUntil } from '../domain/query-params.js';
import { DomainSchema, ProviderProfileResponse } from '../intel/schemas.js';
import { excludeShape } from './schemas.js';

/** Rankings page bounds (docs/payments.md). */
export const RANKING_LIMIT_MAX = 100;
export const RANKING_LIMIT_DEFAULT = 20;
export const RANKING_OFFSET_MAX = 10_000;
/** The default window of rankings and payments: the last 30 days. */
export const PAYMENTS_DEFAULT_DAYS = 30;

const windowShape = {
  since: integerParam(0, MAX_UNIX_SECONDS, 'of UTC Unix seconds')
    .optional()
    .describe('Inclusive start, UTC Unix seconds (default: until minus 30 days); rankings widen it to the start of its UTC day.'),
  until: integerParam(0, MAX_UNIX_SECONDS, 'of UTC Unix seconds')
    .optional()
    .describe('Exclusive end, UTC Unix seconds (default: now); rankings widen it to the end of its UTC day.'),
};

/** Query of GET /api/rankings/{services,recipients,payers}. */
export const RankingsQuery = z
  .strictObject({
    ...windowShape,
    by: enumParam(['nominal', 'payments', 'distinct_payers'])
      .default('nominal')
      .describe(
        'Order, descending: nominal received (listed USD), payments, or distinct payers (default nominal). Ties by nominal, then id.',
      ),
    protocol: enumParam(['mpp', 'x402', 'unknown']).optional().describe('Only payments of this protocol (unknown: not identified).'),
    ...excludeShape,
    limit: integerParam(1, RANKING_LIMIT_MAX, '').default(RANKING_LIMIT_DEFAULT).describe('Rows, 1..100 (default 20).'),
    offset: integerParam(0, RANKING_OFFSET_MAX, '').default(0).describe('Rows to skip, 0..10,000 (default 0).'),
  })
  .superRefine(sinceBeforeUntil);

/** The MCP arguments of get_rankings: the rankings query plus which ranking. */
export const RankingsToolArgs = z
  .strictObject({
    kind: enumParam(['services', 'recipients', 'payers']).describe('What to rank: services, recipients or payers.'),
    ...RankingsQuery.shape,
  })
  .superRefine(sinceBeforeUntil);

const window = {
  since: z.int().describe('Inclusive start of the window, UTC Unix seconds.'),
  until: z.int().describe('Exclusive end of the window, UTC Unix seconds.'),
  covered_since: z.int().nullable().describe('Earliest collected time in the window; null when nothing of it is collected.'),
  covered_until: z
    .int()
    .nullable()
    .describe('Exclusive end of the collected part of the window (at most the newest collected block + 1); null when none.'),
  complete: z
    .boolean()
    .describe('False when the window has gaps in collection: counts are over the collected part only (a gap is unknown, not zero).'),
};

const nominal = z
  .string()
  .nullable()
  .describe(
    'Nominal received (listed USD): exact decimal string of listed USD-currency tokens at 1 dollar per token; null when none is known. Not revenue.',
  );

export const RankingRowSchema = z
  .object({
    rank: z.int().min(1).describe('1-based position in the whole ranking.'),
    service_id: z.string().optional().describe('The service (services ranking).'),
    provider: z.string().nullable().optional().describe('Its provider domain (services ranking); null when unknown.'),
    address: z.string().optional().describe('Lower-case address (recipients and payers rankings).'),
    payments: z.int().min(0).describe('Successful payments with a known payer in the collected part of the window.'),
    distinct_payers: z
      .int()
      .min(0)
      .describe('Distinct payers, self-payments excluded (for a payer: 1, or 0 when all its payments are to itself).'),
    nominal,
    top_payer_share: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .describe('The largest payer\u2019s share of nominal (0..1); null when nominal is null or zero.'),
    self_payments: z.int().min(0).describe('Payments whose payer is the recipient itself.'),
  })
  .describe('One ranked service or address.');

export const RankingSchema = z
  .object({
    ...window,
    by: z.enum(['nominal', 'payments', 'distinct_payers']).describe('The order.'),
    total: z.int().min(0).describe('Ranked rows in the window.'),
    limit: z.int().describe('Page size.'),
    offset: z.int().describe('Rows skipped.'),
    as_of: z.string().describe('Time of the store\u2019s last write reflected by this answer.'),
    value_method: z
      .string()
      .optional()
      .describe('Which payments were left out, in words; present only when exclude was given (self_funded: recipients and payers only).'),
    rows: z.array(RankingRowSchema),
  })
  .describe('A ranking over per-day rollups of payments; nominal values do not measure revenue.');

const ProtocolTallySchema = z.object({ count: z.int().min(0), nominal }).describe('Payments of one protocol.');

export const PaymentsSchema = z
  .object({
    ...window,
    count: z.int().min(0).describe('Attributed successful payments in the collected part of the window.'),
    by_method: z
      .object({ memo_and_pay_to: z.int().min(0), memo: z.int().min(0), pay_to: z.int().min(0) })
      .describe('Payments per attribution method (memo alone is claimed by the payer: anyone can write any memo).'),
    by_protocol: z.object({ mpp: ProtocolTallySchema, x402: ProtocolTallySchema, unknown: ProtocolTallySchema }),
    distinct_payers: z.int().min(0).describe('Distinct payers, self-payments excluded.'),
    distinct_clients: z.int().min(0).describe('Distinct non-anonymous MPP client fingerprints.'),
    nominal,
    first_time: z.int().nullable().describe('First payment in the window, UTC Unix seconds; null when none.'),
    last_time: z.int().nullable().describe('Last payment in the window, UTC Unix seconds; null when none.'),
    top_payer_share: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .describe('The largest payer\u2019s share of nominal; null when nominal is null or zero.'),
    self_payments: z.int().min(0).describe('Payments whose payer is the recipient itself.'),
  })
  .describe('Payments attributed to a service or provider over a window (docs/payments.md).');

/** The window of a provider profile's `payments` (GET /api/providers/{domain}). */
export const ProviderPaymentsQuery = z.strictObject(windowShape).superRefine(sinceBeforeUntil);

/** The MCP arguments of get_provider: the domain and the payments window. */
export const ProviderPaymentsArgs = z.strictObject({ domain: DomainSchema, ...windowShape }).superRefine(sinceBeforeUntil);

/** Query of GET /api/payments: exactly one of service_id and provider, and the window. */
export const PaymentsQuery = z
  .strictObject({
    service_id: z
      .string({ error: (iss) => (Array.isArray(iss.input) ? GIVEN_ONCE : 'must be text') })
      .regex(/^[a-f0-9]{64}$/, { error: 'must be a service id: 64 lower-case hex characters' })
      .optional()
      .describe('The service: sha256 hex of its canonical method and URL (docs/intelligence.md).'),
    provider: DomainSchema.optional().describe('Every service of this provider domain.'),
    ...windowShape,
  })
  .superRefine(sinceBeforeUntil)
  .superRefine((q, ctx) => {
    if ((q.service_id === undefined) === (q.provider === undefined))
      ctx.addIssue({ code: 'custom', path: ['service_id'], message: 'give exactly one of service_id and provider' });
  });

/** GET /api/payments: whose payments and the summary. */
export const PaymentsAnswerSchema = z
  .object({
    service_id: z.string().nullable().describe('The service asked for; null when a provider was.'),
    provider: z.string().nullable().describe('The provider asked for; null when a service was.'),
    payments: PaymentsSchema,
  })
  .describe('Payments attributed to one service or to every service of one provider.');

/** GET /api/providers/{domain} with the provider's and each service's `payments`. */
export const ProviderProfileWithPayments = ProviderProfileResponse.extend({
  provider: ProviderProfileResponse.shape.provider.extend({
    payments: PaymentsSchema,
    services: z.array(ProviderProfileResponse.shape.provider.shape.services.element.extend({ payments: PaymentsSchema })),
  }),
});

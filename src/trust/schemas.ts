/**
 * zod schemas of the trust-check API: they validate requests and generate GET /v1/openapi.json, so the
 * document and the code cannot disagree. Every member of the answer is described here.
 */
import { z } from 'zod';
import { REASON_CODES } from './types.js';
import { ErrorBody } from '../domain/error-body.js';
import { integerConstant } from '../domain/integer-constant.js';

/** Longest URL a check accepts (docs/trust-check.md). */
export const MAX_URL_LENGTH = 2048;

/** Most entries in each list of a policy (a caller names a handful of assets or networks). */
export const MAX_POLICY_ENTRIES = 32;

const policyList = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .min(1, { error: 'must name at least one entry (leave the member out to allow all)' })
    .max(MAX_POLICY_ENTRIES, {
      error: `must have at most ${MAX_POLICY_ENTRIES} entries`,
    });

/** The caller's policy (docs/trust-check.md "Policy"; rule in src/trust/policy.ts). Unknown members are refused. */
export const CheckPolicy = z
  .object({
    max_amount: z
      .string()
      .max(40, { error: 'must be at most 40 characters' })
      .regex(/^\d+(\.\d+)?$/, { error: 'must be a decimal string of US dollars such as "0.05"' })
      .optional()
      .describe(
        "Most the caller pays per call: decimal US dollars, compared with offers in known USD tokens at 1 dollar per token; an offer in another asset meets it only when its asset is in `assets`, compared in that asset's display units.",
      ),
    assets: policyList(z.string().min(1).max(100, { error: 'must be at most 100 characters' }))
      .optional()
      .describe('Token contracts (any case) or currency codes the caller accepts.'),
    networks: policyList(
      z.string().regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/, { error: 'must be a CAIP-2 network id such as eip155:4217' }),
    )
      .optional()
      .describe('CAIP-2 networks the caller accepts.'),
    protocols: policyList(z.enum(['x402', 'mpp']))
      .optional()
      .describe('Payment protocols the caller accepts.'),
  })
  .strict()
  .describe(
    'Which offers the caller accepts; offers outside it are named in price_above_policy, asset_not_allowed, network_not_allowed and protocol_not_allowed reasons (critical when no offer is within it).',
  );

export const CheckRequest = z
  .object({
    url: z
      .string()
      .max(MAX_URL_LENGTH, { error: `must be at most ${MAX_URL_LENGTH} characters` })
      .url({ protocol: /^https?$/, error: 'must be an absolute http or https URL' })
      .describe('The address of the paid resource to check: absolute http or https, at most 2,048 characters.'),
    policy: CheckPolicy.optional(),
  })
  .strict();

/**
 * Body of POST /v1/keys: none, or an empty JSON object. A member (say `plan`) is refused by name rather than
 * ignored, so nobody believes they asked for something they did not get.
 */
// nullish: Fastify validates a missing body as null.
export const KeyRequest = z.strictObject({}).nullish().describe('No body, or an empty JSON object: a key takes no options.');

const Reason = z.object({
  code: z.enum(REASON_CODES).describe('Stable machine-readable code (docs/trust-check.md lists every code and its rule).'),
  severity: z.enum(['info', 'warning', 'critical']).describe('critical → do_not_pay; warning → caution; info only → pay.'),
  message: z.string(),
  evidence: z.record(z.string(), z.unknown()).describe('The observed values the reason rests on.'),
});

const Offer = z
  .object({
    protocol: z.enum(['x402', 'mpp']),
    x402_version: z.number().int().nullable(),
    scheme: z.string().nullable().describe('x402 scheme or MPP intent.'),
    method: z.string().nullable().describe('MPP payment method; null for x402.'),
    network: z.string().nullable().describe('CAIP-2 network id.'),
    asset: z.string().nullable().describe('Token contract (lower-case) or currency code.'),
    amount_atomic: z.string().nullable().describe('Exact atomic integer amount.'),
    amount: z.string().nullable().describe('Exact decimal amount in token units where decimals are known, else null.'),
    decimals: z.number().int().nullable(),
    pay_to: z.string().nullable().describe('payTo (x402) or recipient (MPP), lower-case.'),
    max_timeout_seconds: z.number().nullable(),
    expires: z.string().nullable(),
    description: z.string().nullable(),
    resource: z.string().nullable(),
    extra: z.record(z.string(), z.unknown()).nullable(),
    source: z.string().describe('Where the offer was read: header, body, www-authenticate.'),
  })
  .describe('A payment option advertised by the URL now (an advertisement, not a charge).');

const AssetInfo = z.object({
  network: z.string().nullable(),
  asset: z.string().nullable(),
  known: z.boolean().describe('A token we recognise on that network (Tempo: a TIP-20 whose currency() is known).'),
  symbol: z.string().nullable(),
  currency: z.string().nullable(),
  decimals: z.number().int().nullable(),
  source: z.enum(['static', 'chain', 'config']).nullable(),
});

const PayToActivity = z.object({
  pay_to: z.string(),
  network: z.string().nullable(),
  count: z
    .number()
    .int()
    .nullable()
    .describe('Observed successful transactions paying this address; null = network not observed (unknown, not zero).'),
  first_time_unix: z.number().int().nullable().describe('UTC Unix seconds of the first observed payment.'),
  last_time_unix: z.number().int().nullable().describe('UTC Unix seconds of the last observed payment.'),
});

const FundingLink = z.object({
  payer: z.string().describe('A payer of the payTo (lower-case address).'),
  funder: z.string().describe('Who sent the payer its first listed-token inflow of the window.'),
  kind: z
    .enum(['pay_to', 'pay_to_funder', 'common_funder'])
    .describe("The funder is the payTo, the payTo's own funder, or the common funder of most payers."),
  time: z.number().int().describe('UTC Unix seconds of that inflow.'),
  tx: z.string().nullable().describe('Its transaction hash (null when not stored).'),
  nominal: z.string().nullable().describe("The payer's nominal paid to the payTo in the window (listed USD, exact decimal)."),
});

const PayerAnalysis = z
  .object({
    pay_to: z.string().describe('The payTo analysed, lower-case.'),
    since: z.number().int().describe('Start of the window, UTC Unix seconds (whole UTC days; the 30 days before the check).'),
    until: z.number().int().describe('Exclusive end of the window, UTC Unix seconds.'),
    covered_since: z.number().int().nullable().describe('Earliest collected time in the window (figures are over the collected part).'),
    covered_until: z.number().int().nullable().describe('Exclusive end of the collected part of the window.'),
    complete: z.boolean().describe('False when the window has gaps.'),
    payments: z.number().int().describe('Payments in listed tokens received in the window (self-payments included).'),
    nominal: z.string().nullable().describe('Their nominal (listed USD, exact decimal), null when none.'),
    distinct_payers: z.number().int().describe('Payers with a listed-token payment, the payTo itself excluded.'),
    top_payer: z.string().nullable().describe('The payer with the largest nominal (ties: the lowest address).'),
    top_payer_payments: z.number().int().describe("The top payer's payments in the window."),
    top_payer_tx: z.string().nullable().describe('A transaction of the top payer paying the payTo.'),
    top_payer_share: z.number().nullable().describe("The largest payer's share of nominal, 0..1."),
    self_payments: z.number().int().describe('Payments where payer = payTo.'),
    funder: z
      .object({ address: z.string(), time: z.number().int(), tx: z.string().nullable() })
      .nullable()
      .describe("The payer of the payTo's own first listed-token inflow of the window."),
    payers_examined: z.number().int().describe('Payers whose first inflow was read (largest first, at most 1,000).'),
    capped: z.boolean().describe('True when more payers exist than were examined.'),
    examined_share: z
      .number()
      .nullable()
      .describe(
        'Share of nominal (0..1) from the examined payers and self-payments; when capped, the links and self_funded_share are lower bounds (the true share is at most self_funded_share + 1 − examined_share).',
      ),
    common_funder: z
      .object({ address: z.string(), payers: z.number().int() })
      .nullable()
      .describe('The first funder of more than half of the examined payers (at least 3), if any.'),
    funding_links: z.array(FundingLink).describe('Payers funded by a linked address, largest first (at most 20 listed).'),
    funding_links_total: z.number().int().describe('Funding links found among the examined payers (all kinds).'),
    self_funded_payers: z.number().int().describe('Payers funded by the payTo or by its funder.'),
    self_funded_share: z.number().nullable().describe('Share of nominal from self-payments and self-funded payers, 0..1.'),
    service: z
      .object({
        service_id: z.string(),
        count: z.number().int(),
        distinct_payers: z.number().int(),
        top_payer_share: z.number().nullable(),
        self_payments: z.number().int(),
        nominal: z.string().nullable(),
      })
      .nullable()
      .describe("The attributed service's payer figures over the same window (URL checks of a listed service)."),
  })
  .describe('Who pays a payTo (docs/trust-check.md, "Who pays").');

const Signals = z
  .object({
    live_challenge: z.object({
      outcome: z
        .string()
        .describe('payment_required, invalid_challenge, ok_without_payment, not_found, error, timeout, unreachable, refused, too_large'),
      http_status: z.number().int().nullable(),
      offers: z.number().int(),
    }),
    https: z.boolean(),
    listing: z.object({
      listed: z.boolean(),
      first_seen: z.string().nullable(),
      checks_total: z.number().int().nullable(),
      checks_healthy: z.number().int().nullable(),
    }),
    history: z.object({
      compared: z.boolean(),
      pay_to_consistent: z.boolean().nullable(),
      asset_consistent: z.boolean().nullable(),
      network_consistent: z.boolean().nullable(),
      price_ratio: z.string().nullable().describe('Live price / historical price, exact decimal (6 fraction digits, truncated).'),
    }),
    recent_changes: z
      .object({
        window_days: z.number().nullable().describe('Length of the change window, days (PAYWATCH_TRUST_CHANGE_WINDOW_DAYS).'),
        since: z.string().nullable().describe('ISO 8601 start of the window.'),
        change_ids: z
          .array(z.number().int())
          .describe('Ids of the payTo, price, network and asset change records weighed (GET /api/intelligence/changes).'),
      })
      .describe("The service's recorded changes within the window before the check."),
    price: z.array(
      z.object({
        network: z.string().nullable(),
        asset: z.string().nullable(),
        amount_atomic: z.string().nullable(),
        amount: z.string().nullable(),
        dollars: z.string().nullable().describe('Exact decimal dollars for USD tokens (1 dollar per token); null otherwise.'),
      }),
    ),
    assets: z.array(AssetInfo),
    pay_to_activity: z.array(PayToActivity),
    ownership: z.enum(['valid', 'invalid', 'absent']).describe('EIP-191 signature of the origin by the payTo in /.well-known/x402.'),
    networks: z.array(z.object({ network: z.string().nullable(), kind: z.enum(['mainnet', 'testnet', 'unknown']) })),
    directory: z.object({ listed: z.boolean(), sources: z.array(z.string()) }),
    payers: z.array(PayerAnalysis).describe('Who pays each live payTo on a network we observe.'),
  })
  .describe('Every signal the verdict used.');

export const CheckAnswer = z.object({
  url: z.string().describe('The URL checked, as given.'),
  checked_at: z.string().describe('ISO 8601 time of the check.'),
  verdict: z.enum(['pay', 'caution', 'do_not_pay']),
  reasons: z.array(Reason).describe('Reasons, critical first.'),
  offers: z.array(Offer).describe('Offers seen now.'),
  provider: z
    .object({ domain: z.string(), first_seen: z.string().nullable() })
    .nullable()
    .describe('The matching provider if listed, else null.'),
  service: z
    .object({
      service_id: z.string(),
      first_seen: z.string().nullable(),
      last_checked: z.string().nullable(),
      checks_total: z.number().int().nullable(),
      checks_healthy: z.number().int().nullable(),
      sources: z.array(z.string()),
    })
    .nullable()
    .describe('The matching service if listed, else null.'),
  signals: Signals,
  policy: z
    .object({
      satisfied: z.boolean().describe('True when at least one live offer is within the policy.'),
      offers_within_policy: z.array(z.number().int()).describe('Indexes into `offers` of the offers within the policy.'),
    })
    .nullable()
    .optional()
    .describe("How the live offers meet the request's policy; null when the request gave none."),
  snapshot_id: z.string().describe('Id of this check (UUID v7).'),
  evidence_hash: z
    .string()
    .nullable()
    .describe('sha256 hex of the archived raw response (gzip of its canonical form); null when nothing was received.'),
  disclaimers: z
    .array(z.string())
    .describe('Scores describe evidence, not honesty or task success; domain control does not prove wallet control.'),
});

/** Body of POST /v1/check/pay-to and the check_pay_to tool. */
export const PayToCheckRequest = z
  .object({
    pay_to: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, { error: 'must be a 0x address of 40 hex digits' })
      .describe('The payee address to check (any case).'),
    network: z
      .string()
      .regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/, { error: 'must be a CAIP-2 network id such as eip155:4217' })
      .optional()
      .describe('CAIP-2 network of the payee (default eip155:4217, Tempo mainnet: the only network whose payments we observe).'),
  })
  .strict();

const ListedService = z.object({
  service_id: z.string(),
  domain: z.string(),
  url: z.string(),
  first_advertised: z.string().describe('ISO 8601 of the first observed offer naming the payTo.'),
  last_advertised: z.string().describe('ISO 8601 of the latest observed offer naming the payTo.'),
  last_checked: z
    .string()
    .nullable()
    .describe("ISO 8601 of the service's latest check (an advertisement older than it is no longer current)."),
});

export const PayToCheckAnswer = z.object({
  pay_to: z.string().describe('The payee checked, lower-case.'),
  network: z.string().describe('CAIP-2 network checked.'),
  checked_at: z.string().describe('ISO 8601 time of the check.'),
  verdict: z.enum(['pay', 'caution', 'do_not_pay']),
  reasons: z.array(Reason).describe('Reasons, critical first.'),
  services: z
    .array(ListedService)
    .describe('Listed services that advertise or advertised this payTo, newest advertisement first (at most 100).'),
  signals: z
    .object({
      pay_to_activity: z.array(PayToActivity),
      services: z.object({ total: z.number().int(), listed: z.number().int() }),
      recent_changes: z.object({
        window_days: z.number().nullable(),
        since: z.string().nullable(),
        change_ids: z.array(z.number().int()).describe('Ids of the pay_to_changed records that moved a service to this payTo.'),
      }),
      networks: z.array(z.object({ network: z.string().nullable(), kind: z.enum(['mainnet', 'testnet', 'unknown']) })),
      payers: z.array(PayerAnalysis).describe('Who pays it (empty on a network we do not observe).'),
    })
    .describe('Every signal the verdict used.'),
  snapshot_id: z.string().describe('Id of this check (UUID v7).'),
  evidence_hash: z.null().describe('Always null: a payee-only check fetches nothing.'),
  disclaimers: z.array(z.string()),
});

export const KeyAnswer = z.object({
  key: z.string().describe('The API key. Shown once: it is stored hashed and cannot be shown again.'),
  key_id: z.string(),
  plan: z.enum(['free', 'paid']),
  monthly_checks: z.number().int().nullable().describe('Successful checks per UTC calendar month (null = unlimited, metered).'),
  created_at: z.string(),
  expires_after_idle_days: z
    .number()
    .int()
    .describe('A free key unused for this many days expires (401 naming the expiry); each check with it counts as a use.'),
});

export const Errors = {
  400: ErrorBody.describe(
    'Bad body (malformed JSON, a duplicate or unknown member, a wrong type) or URL, or a refused address (private, loopback, link-local, metadata).',
  ),
  401: ErrorBody.describe('Missing or bad API key where no per-call payment is offered.'),
  402: z
    .object({ error: z.string(), x402Version: integerConstant(1), accepts: z.array(z.record(z.string(), z.unknown())) })
    .describe('Payment required: the PAYMENT-REQUIRED header carries the x402 v2 requirements; the body is v1-compatible.'),
  415: ErrorBody.describe('The body is not application/json, or is compressed (Content-Encoding): send uncompressed JSON.'),
  429: ErrorBody.describe('Free quota used (the message names the paid options) or rate limited; see Retry-After.'),
  503: ErrorBody.describe('Our store or payment facilitator is down; retry after Retry-After seconds. Not metered, not settled.'),
};

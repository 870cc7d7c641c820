/**
 * The parameter and response shapes of the provider and intelligence endpoints, defined once (zod) and shared by
 * the HTTP routes (validation + OpenAPI document) and the MCP tools (input and output schemas), so the two faces
 * cannot disagree. Source of the rules: docs/intelligence.md.
 */
import { z } from 'zod';
import { MAX_UNIX_SECONDS } from '../domain/filters.js';
import { GIVEN_ONCE, decimalParam, enumParam, flagParam, integerParam, strictParams, textParam } from '../domain/query-params.js';
import { SERVICES_IN_LISTING } from './listing.js';

/** Probe outcomes (src/domain/intel.ts ProbeOutcome), plus `unchecked` for a service never probed. */
export const CHECK_VALUES = [
  'payment_required',
  'invalid_challenge',
  'ok_without_payment',
  'not_found',
  'error',
  'timeout',
  'unreachable',
  'refused',
  'too_large',
  'unchecked',
] as const;

/** Routes and tools that take no parameters. */
export const NoParams = strictParams({});

const limit = integerParam(1, 100, '').default(30).describe('page size, 1..100 (default 30)');

/** A provider domain: lower-case host, with a port only when not the default. */
export const DomainSchema = z
  .string({ error: (iss) => (Array.isArray(iss.input) ? GIVEN_ONCE : 'must be text') })
  .min(1, { error: 'must not be empty' })
  .max(260, { error: 'must be at most 260 characters' })
  .regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/, { error: 'must be a host name (or [IPv6]) with an optional :port' })
  .transform((d) => d.toLowerCase())
  .describe("provider domain: lower-case host, with ':port' only when not the default");

/** GET /api/providers and the search_providers tool. */
export const ProvidersQuery = strictParams({
  q: textParam(140, /^[A-Za-z0-9:._\-/ ]*$/, 'may contain only ASCII letters, digits, spaces and : . _ - /')
    .optional()
    .describe('matches provider domain, service URL or description (case-insensitive substring), max 140 characters'),
  network: textParam(100, /^[A-Za-z0-9:._-]+$/, 'must be a CAIP-2 network id such as eip155:4217')
    .optional()
    .describe('only services whose latest check advertises an offer on this CAIP-2 network'),
  check: enumParam(CHECK_VALUES).optional().describe('only services whose latest check had this outcome (unchecked = never probed)'),
  pay_to: textParam(42, /^0x[0-9a-fA-F]{40}$/, 'must be a 0x address of 40 hex digits')
    .optional()
    .describe(
      'only providers with a service whose observed offers name this payTo, now or before (any case); the answer lists those services with their dates in pay_to_services',
    ),
  include_stale: flagParam().optional().describe('also list stale services (failing longer than the stale period); default false'),
  limit,
  offset: integerParam(0, 20_000, '').default(0).describe('providers to skip, 0..20,000 (default 0)'),
});
export type ProvidersQuery = z.infer<typeof ProvidersQuery>;

/** GET /api/providers/{domain} and the get_provider tool. */
export const ProviderParams = strictParams({ domain: DomainSchema });
export type ProviderParams = z.infer<typeof ProviderParams>;

/** The contract types these `number`: plain decimals (`1.5`), unlike the chain endpoints' integer seconds. */
const unixSeconds = (what: string) => decimalParam(0, MAX_UNIX_SECONDS, 'of UTC Unix seconds').describe(what);

/** GET /api/intelligence/{offers,changes,history} and their tools. */
export const IntelQuery = strictParams({
  domain: DomainSchema.optional(),
  service_id: textParam(64, /^[a-f0-9]{64}$/, 'must be a service id: 64 lower-case hex characters')
    .optional()
    .describe('service id: sha256 hex of the canonical method and URL (docs/intelligence.md)'),
  since: unixSeconds('inclusive lower bound, UTC Unix seconds').optional(),
  until: unixSeconds('exclusive upper bound, UTC Unix seconds; fix it while paginating').optional(),
  limit,
  offset: integerParam(0, 1_000_000, '').default(0).describe('rows to skip, 0..1,000,000 (default 0)'),
});
export type IntelQuery = z.infer<typeof IntelQuery>;

// ---- responses -------------------------------------------------------------------------------------------------

/** Statements of what a response is not (docs/intelligence.md). */
export const DISCLAIMERS = {
  providers:
    'Provider listings and endpoint checks are observations. A listing or check does not establish a completed purchase. Prices are advertised offers, not charges or verified savings. Domain control does not prove wallet control. A new payment option does not establish a new independent provider. Unknown values are null.',
  offers:
    'Offers are advertised payment options, not charges, completed purchases or verified savings. A new payment option does not establish a new independent provider. Domain control does not prove wallet control. Unknown values are null.',
  changes:
    'Changes compare dated endpoint checks; they describe what was advertised, not what was charged or delivered. A new payment option does not establish a new independent provider.',
  history:
    'History lists dated endpoint checks with the offers they advertised. A check does not establish a completed purchase or a task outcome. Prices are advertised offers, not charges.',
  status:
    'Collection health of provider intelligence. Records are observations, not a complete list of providers: a missing record is not zero activity.',
} as const;

/**
 * The version of what an intelligence collection means, carried as `collection_version` by every provider and
 * intelligence answer (HTTP and MCP) — contract §9: "Intelligence collections are versioned". Bump it (to "2",
 * "3"…) when a collected record's meaning changes: what a probe outcome, offer, change kind or staleness rule
 * means, or how directories and probes are read into them; not for new members, fixes of single records or a
 * different schedule. Answers are never rewritten: records collected before a bump keep the meaning of theirs.
 */
export const COLLECTION_VERSION = '1' as const;

const collectionVersion = z
  .literal(COLLECTION_VERSION)
  .describe(
    'version of the meaning of the collected records (outcomes, offers, changes, staleness); changes only when that meaning changes',
  );

const disclaimer = z
  .string()
  .describe('what this response is not: listings, checks and advertised prices do not establish purchases, charges or wallet control');
const iso = z.string().describe('ISO 8601 UTC time');
const isoOrNull = z.string().nullable();

export const OfferSchema = z
  .object({
    protocol: z.enum(['x402', 'mpp']),
    x402_version: z.number().int().nullable(),
    scheme: z.string().nullable().describe('x402 scheme or MPP intent'),
    method: z.string().nullable().describe('MPP method; null for x402'),
    network: z.string().nullable().describe('CAIP-2 network id'),
    asset: z.string().nullable(),
    amount_atomic: z.string().nullable().describe('exact atomic integer string'),
    amount: z.string().nullable().describe('exact decimal string in token units where the decimals are known'),
    decimals: z.number().int().nullable(),
    pay_to: z.string().nullable(),
    max_timeout_seconds: z.number().nullable(),
    expires: z.string().nullable(),
    description: z.string().nullable(),
    resource: z.string().nullable(),
    extra: z.record(z.string(), z.unknown()).nullable(),
    source: z.enum(['header', 'body', 'www-authenticate', 'openapi', 'well-known', 'directory']).describe('where the offer was read'),
  })
  .describe('an advertised payment option');

export const StoredOfferSchema = OfferSchema.extend({
  id: z.number().int(),
  service_id: z.string(),
  domain: z.string(),
  snapshot_id: z
    .string()
    .nullable()
    .describe(
      'the endpoint check it was read from, or for a directory listing the archived directory answer (null only for listings stored before directories were archived)',
    ),
  source_name: z.string().nullable().describe('the directory source it was listed by (null for an endpoint check)'),
  observed_at: iso,
  evidence_hash: z
    .string()
    .nullable()
    .describe(
      'sha256 hex of the archived raw response it was read from (endpoint answer or directory answer); paywatch intel verify-archive re-hashes it',
    ),
});

export const CheckSchema = z.object({
  snapshot_id: z.string(),
  checked_at: iso,
  outcome: z.string(),
  http_status: z.number().int().nullable(),
  latency_ms: z.number().nullable(),
  error: z.string().nullable(),
  evidence_hash: z.string().nullable(),
});

export const SourceFreshnessSchema = z.object({
  name: z.string(),
  kind: z.string(),
  url: z.string(),
  last_attempt_at: isoOrNull,
  last_success_at: isoOrNull,
  last_error: z.string().nullable(),
  item_count: z.number().int().nullable(),
  samples: z.array(z.unknown()).describe('a few recent items of the source'),
  notes: z
    .array(
      z.object({
        kind: z.literal('directory_entry_invalid'),
        detail: z.string().describe('why the entry was refused, with an escaped prefix of the value'),
        url: z.string().nullable().describe("the entry's URL, escaped and cut; null when it had none"),
      }),
    )
    .describe('entries of the last successful pass refused when read (never stored, never probed); docs/intelligence.md, "Bounds"'),
});

export const ServiceListingSchema = z.object({
  service_id: z.string(),
  method: z.string(),
  url: z.string(),
  tool: z.string().nullable(),
  description: z.string().nullable(),
  sources: z.array(z.string()),
  first_seen: iso,
  last_seen: iso,
  stale: z.boolean().describe('failing for longer than the stale period; hidden from default search'),
  last_good_check_at: isoOrNull.describe('the last check that answered as a paid (402) or free (2xx) endpoint'),
  failing_since: isoOrNull,
  latest_check: CheckSchema.nullable(),
  offers: z.array(OfferSchema).describe('offers of the latest check'),
});

const ProviderSchema = z.object({ domain: z.string(), first_seen: iso, last_seen: iso });

const ShortCheckSchema = z.object({ checked_at: iso, outcome: z.string(), http_status: z.number().int().nullable() });

export const PriceRangeSchema = z
  .object({
    network: z.string().nullable().describe('CAIP-2 network id'),
    asset: z.string().nullable(),
    decimals: z.number().int().nullable(),
    min_amount_atomic: z.string().describe('exact atomic integer string'),
    max_amount_atomic: z.string().describe('exact atomic integer string'),
    min_amount: z.string().nullable().describe('exact decimal string; null when the decimals are unknown'),
    max_amount: z.string().nullable(),
  })
  .describe('lowest and highest advertised amount of one asset on one network, over the latest checks of the listed services');

/** One provider in a search listing: a summary of its matching services (src/intel/listing.ts). */
export const ProviderListingSchema = ProviderSchema.extend({
  profile: z.string().describe('path of the full profile (all services, offers and dated checks)'),
  services_total: z.number().int().describe('services of this provider matching the search'),
  services_stale: z.number().int().describe('of those, stale ones (only with include_stale)'),
  stale: z.boolean().describe('every matching service is stale'),
  networks: z.array(z.string()).describe('CAIP-2 networks advertised by the latest checks'),
  protocols: z.array(z.string()).describe('x402 and/or mpp'),
  prices: z.array(PriceRangeSchema).describe('advertised price ranges per network and asset; advertised offers, not charges'),
  latest_check: ShortCheckSchema.nullable().describe('the newest dated endpoint check of the matching services'),
  last_good_check_at: isoOrNull.describe('the newest check that answered as a paid (402) or free (2xx) endpoint'),
  services: z
    .array(
      ServiceListingSchema.pick({
        service_id: true,
        method: true,
        url: true,
        tool: true,
        description: true,
        stale: true,
        last_good_check_at: true,
        failing_since: true,
      }).extend({
        latest_check: ShortCheckSchema.nullable(),
        offers_count: z.number().int().describe('offers advertised by the latest check'),
      }),
    )
    .describe(`the first matching services by URL (at most ${SERVICES_IN_LISTING}); all of them, with offers, in the profile`),
});

/** The members every list answer starts with: what it is not, the collection version, and its pagination. */
const page = {
  disclaimer,
  collection_version: collectionVersion,
  as_of: iso,
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
};

export const ProvidersResponse = z
  .object({
    ...page,
    stale_after_days: z.number(),
    sources: z.array(SourceFreshnessSchema),
    providers: z.array(ProviderListingSchema),
    pay_to_services: z
      .array(
        z.object({
          service_id: z.string(),
          domain: z.string(),
          url: z.string(),
          first_advertised: iso.describe('first observed offer naming the payTo'),
          last_advertised: iso.describe('latest observed offer naming the payTo'),
          last_checked: iso.nullable().describe("the service's latest check (an advertisement older than it is no longer current)"),
        }),
      )
      .optional()
      .describe('with pay_to: the services that advertise or advertised it, newest advertisement first (at most 100)'),
  })
  .loose();

export const ProviderProfileResponse = z
  .object({
    disclaimer,
    collection_version: collectionVersion,
    as_of: iso,
    stale_after_days: z.number(),
    provider: ProviderSchema.extend({
      services: z.array(
        ServiceListingSchema.extend({ checks: z.array(CheckSchema).describe('recent dated checks, newest first (at most 20)') }),
      ),
    }),
  })
  .loose();

export const OffersResponse = z.object({ ...page, offers: z.array(StoredOfferSchema) }).loose();

export const ChangeSchema = z.object({
  id: z.number().int(),
  service_id: z.string(),
  domain: z.string(),
  kind: z.string(),
  at: iso,
  before_snapshot_id: z.string().nullable(),
  after_snapshot_id: z.string(),
  before: z.unknown(),
  after: z.unknown(),
});
export const ChangesResponse = z.object({ ...page, changes: z.array(ChangeSchema) }).loose();

export const HistoryResponse = z
  .object({
    ...page,
    checks: z.array(CheckSchema.extend({ service_id: z.string(), domain: z.string(), offers: z.array(OfferSchema) })),
  })
  .loose();

export const IntelligenceStatusResponse = z
  .object({
    disclaimer,
    collection_version: collectionVersion,
    as_of: iso,
    collection: z.object({
      available: z.boolean().describe('false until one collection run has finished; the list endpoints answer 503 until then'),
      last_run: z
        .object({
          started_at: iso,
          finished_at: isoOrNull,
          services: z.number().nullable(),
          snapshots: z.number().nullable(),
          changes: z.number().nullable(),
          error: z.string().nullable(),
        })
        .nullable(),
      last_successful_run_at: isoOrNull,
    }),
    sources: z.array(SourceFreshnessSchema),
    history: z.object({
      providers: z.number().int(),
      services: z.number().int(),
      services_stale: z.number().int(),
      snapshots: z.number().int(),
      offers: z.number().int(),
      changes: z.number().int(),
      first_check_at: isoOrNull,
      last_check_at: isoOrNull,
    }),
    stale_after_days: z.number(),
    archive_verification: z
      .object({ started_at: iso, finished_at: iso, checked: z.number().int(), verified: z.number().int(), failed: z.array(z.string()) })
      .nullable()
      .describe('the latest archive verification run: evidence re-hashed, how many matched, which snapshot ids did not'),
  })
  .loose();

/** The `{error}` body (docs/api-chain.md). */

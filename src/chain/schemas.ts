/**
 * The chain area's wire schemas (docs/api-chain.md), defined once: the request schemas every face parses with
 * (the HTTP routes and the CSV export), so they cannot disagree, and the response schemas. Both generate the
 * OpenAPI document; responses are checked in tests against real answers. Objects allow extra members where the
 * contract does.
 */
import { z } from 'zod';
import { integerConstant } from '../domain/integer-constant.js';
import {
  ATTRIBUTION_METHODS,
  CHAIN_ID,
  TRANSACTION_MEMBERS,
  type MemberName,
  type ServedMember,
  type TransactionMember,
} from '../domain/observation.js';
import {
  ADDRESS_PATTERN,
  DOMAIN_PATTERN,
  EXCLUDE_VALUES,
  HASH_PATTERN,
  LIMIT_DEFAULT,
  LIMIT_MAX,
  MAX_UNIX_SECONDS,
  OFFSET_MAX,
  PROTOCOL_FILTERS,
  SERIES_SPLITS,
  Q_MAX,
  Q_PATTERN,
  SERVICE_ID_PATTERN,
} from '../domain/filters.js';
import { CATEGORIES } from './decode/constants.js';
import { enumParam, integerParam, sinceBeforeUntil, subsetParam, textParam as plainTextParam } from '../domain/query-params.js';

// ---- requests ---------------------------------------------------------------------------------------------------

const textParam = (max: number, description: string) =>
  plainTextParam(max, Q_PATTERN, 'may contain only ASCII letters, digits, spaces and : . _ -').describe(description);

/** The members of the common filters, shared by every chain query schema below. */
export const filterShape = {
  since: integerParam(0, MAX_UNIX_SECONDS, 'of UTC Unix seconds')
    .optional()
    .describe('Inclusive lower bound on block time, UTC Unix seconds.'),
  until: integerParam(0, MAX_UNIX_SECONDS, 'of UTC Unix seconds')
    .optional()
    .describe('Exclusive upper bound on block time, UTC Unix seconds; fix it while paginating.'),
  q: textParam(
    Q_MAX,
    'Wallet (sender or recipient), transaction hash, token symbol or venue name, matched exactly; ASCII letters, digits, spaces and : . _ - only; at most 140 characters.',
  ).optional(),
  asset: textParam(66, 'Token contract (recommended) or symbol (symbols can be ambiguous).').optional(),
  exchange: textParam(Q_MAX, 'Exact venue name, or "unknown" for observations with no identified exchange.').optional(),
  execution: enumParam(['success', 'failed', 'unknown']).optional().describe('Execution result: success, failed or unknown (no receipt).'),
  protocol: enumParam(PROTOCOL_FILTERS)
    .optional()
    .describe('Identified protocol: mpp, x402, or unknown (none identified: chain activity alone does not establish one).'),
  category: enumParam(CATEGORIES).optional().describe('Exact category.'),
  payer: addressParam('Who paid (the payer of the primary leg, never simply the sender), exact address.'),
  recipient: addressParam('Recipient of the primary leg, exact address.'),
  service_id: plainTextParam(64, SERVICE_ID_PATTERN, 'must be a service id: 64 lower-case hex characters')
    .optional()
    .describe('The service the payment is attributed to (sha256 hex service id, docs/intelligence.md), exact.'),
  provider: plainTextParam(260, DOMAIN_PATTERN, 'must be a host name (or [IPv6]) with an optional :port')
    .transform((d) => d.toLowerCase())
    .optional()
    .describe('The provider domain of the service the payment is attributed to, exact.'),
};

/** An optional address filter: 0x + 40 hex digits, lower-cased. */
function addressParam(description: string) {
  return plainTextParam(42, ADDRESS_PATTERN, 'must be an address: 0x and 40 hex digits')
    .transform((a) => a.toLowerCase())
    .optional()
    .describe(description);
}

/** Drops empty optional text filters (an empty `q=` from a form means "no filter"). */
function dropEmpty<T extends Record<string, unknown>>(f: T): T {
  const out = { ...f };
  for (const k of ['q', 'asset', 'exchange'] as const) if (typeof out[k] === 'string' && (out[k] as string).trim() === '') delete out[k];
  for (const k of ['q', 'asset', 'exchange'] as const)
    if (typeof out[k] === 'string') (out as Record<string, unknown>)[k] = (out[k] as string).trim();
  return out;
}

/** `exclude`: the payments a figure or export leaves out (docs/api-chain.md, "Excluding self-payments and self-funded payments"). */
export const excludeShape = {
  exclude: subsetParam(EXCLUDE_VALUES)
    .optional()
    .describe(
      "Comma-separated payments to leave out: self_payment (payer = recipient), self_funded (the payer's first observed listed-token inflow came from the recipient or from the recipient's own first funder; one hop). A payment whose payer or funder is unknown is kept. value_method names the rule applied.",
    ),
};

/** Query of /api/metrics: the common filters and `exclude`; unknown parameters are rejected. */
export const FiltersQuery = z
  .strictObject({ ...filterShape, ...excludeShape })
  .superRefine(sinceBeforeUntil)
  .transform(dropEmpty);

/** Query of /api/metrics/series: the common filters and the bucket size (hour or day, default hour). */
export const SeriesQuery = z
  .strictObject({
    ...filterShape,
    ...excludeShape,
    bucket: enumParam(['hour', 'day']).default('hour').describe('Bucket size: hour or day (UTC-aligned; default hour).'),
    split: enumParam(SERIES_SPLITS)
      .optional()
      .describe('protocol: each bucket also gains `protocol`, split into mpp, x402 and unknown (none identified).'),
  })
  .superRefine(sinceBeforeUntil)
  .transform(dropEmpty);

/**
 * Query of /api/export: the common filters; `offset` is accepted and ignored (docs/api-chain.md): any value, empty,
 * malformed or repeated, is exempt from every check, since it changes nothing in the answer.
 */
export const ExportQuery = z
  .strictObject({
    ...filterShape,
    ...excludeShape,
    offset: z.unknown().optional().describe('Ignored (any value): the export always starts at the newest match.'),
  })
  .superRefine(sinceBeforeUntil)
  .transform(({ offset: _offset, ...f }) => dropEmpty(f));

/** Query of /api/transactions: the common filters plus limit and offset. */
export const TransactionsQuery = z
  .strictObject({
    ...filterShape,
    limit: integerParam(1, LIMIT_MAX, '').default(LIMIT_DEFAULT).describe('Page size, 1..100 (default 30).'),
    offset: integerParam(0, OFFSET_MAX, '').default(0).describe('Rows to skip, 0..1,000,000 (default 0).'),
  })
  .superRefine(sinceBeforeUntil)
  .transform(dropEmpty);

/** Path parameters of /api/transactions/{hash}. */
export const HashParams = z.strictObject({
  hash: z
    .string()
    .regex(HASH_PATTERN, { error: 'must be 0x followed by 64 hexadecimal digits' })
    .describe('Transaction hash, 0x + 64 hex digits.'),
});

// ---- responses --------------------------------------------------------------------------------------------------

const decimal = (what: string) =>
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/)
    .nullable()
    .describe(`${what}: exact decimal string (no exponent, no float); null when unknown.`);

export const IntegrityStageSchema = z
  .object({
    level: z.int().describe('Stage level (1 finalized receipt, 2 block commitment).'),
    label: z.string().describe('Stage name.'),
    status: z.enum(['pass', 'fail', 'unknown']).describe('pass, fail, or unknown when the stage could not be evaluated.'),
    reason: z.string().describe('What was checked and what was found.'),
  })
  .describe('One evaluated integrity stage.');

export const IntegritySchema = z.looseObject({
  score: z.int().min(0).max(5).describe('Number of consecutive passed stages from stage 1.'),
  maximum: integerConstant(5).describe('Constant 5.'),
  version: z.string().describe('Version of the integrity rules.'),
  stages: z.array(IntegrityStageSchema).describe('Evaluated stages (currently levels 1 and 2).'),
  scope: z.string().describe('What was checked, e.g. transaction-in-finalized-block.'),
  name: z.string().optional().describe('Optional name.'),
  status: z.string().optional().describe('Optional overall status.'),
  label: z.string().optional().describe('Optional label.'),
  evaluated_at: z.iso.datetime({ offset: true }).optional().describe('When the stages were evaluated.'),
  independent_consensus_verified: z
    .boolean()
    .optional()
    .describe(
      "True exactly when a finalization certificate covering this transaction's block verified under the chain's anchored group key (the detail's evidence.finality).",
    ),
});

/** The zod schema of each served member kind, before `nullable` and the member's description. */
const ZOD_OF_KIND = {
  hash: () => z.string().regex(/^0x[0-9a-fA-F]{64}$/),
  int: () => z.int(),
  chain_id: () => integerConstant(CHAIN_ID),
  address: () => z.string(),
  text: () => z.string(),
  decimal: () => z.string().regex(/^-?\d+(\.\d+)?$/),
  boolean: () => z.boolean(),
  attribution_method: () => z.enum(ATTRIBUTION_METHODS),
  fingerprint: () => z.string().regex(/^0x[0-9a-f]{20}$/),
  execution: () => z.enum(['success', 'failed', 'unknown']),
  integrity: () => IntegritySchema,
};

type Members = typeof TRANSACTION_MEMBERS;
type ZodOf<K extends ServedMember> = ReturnType<(typeof ZOD_OF_KIND)[Members[K]['kind']]>;
type Nullable<K extends ServedMember> = Members[K]['nullable'] extends true ? z.ZodNullable<ZodOf<K>> : ZodOf<K>;
/** The zod shape of the public Transaction: one schema per served member, typed by its kind, nullability and whether it is additive. */
type TransactionShape = {
  [K in ServedMember]: Members[K] extends { additive: true } ? z.ZodOptional<Nullable<K>> : Nullable<K>;
};

/**
 * The zod shape of the public Transaction, built from TRANSACTION_MEMBERS (src/domain/observation.ts): its served
 * members in their order, each nullable when declared so, optional when additive, and described by its `served` text.
 */
export function transactionShapeOf(): TransactionShape {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, m] of Object.entries(TRANSACTION_MEMBERS) as [MemberName, TransactionMember][]) {
    if (m.served === null) continue;
    const base: z.ZodType = ZOD_OF_KIND[m.kind as keyof typeof ZOD_OF_KIND]();
    const nullable = m.nullable ? base.nullable() : base;
    // Additive members are always served but not required, so the contract's required list stays its own.
    shape[name] = (m.additive ? nullable.optional() : nullable).describe(m.served);
  }
  return shape as TransactionShape;
}

const transactionShape = transactionShapeOf();

export const TransactionSchema = z.looseObject(transactionShape).describe('One observed finalized transaction.');

export const FinalityEvidenceSchema = z
  .object({
    status: z
      .enum(['verified', 'failed', 'unknown'])
      .describe(
        'verified: a finalization certificate covering this block passed the six checks (docs/integrity.md); failed: a check proved it wrong; unknown: none judged yet ("awaiting certificate") or it could not be judged.',
      ),
    check: z
      .enum(['certificate', 'epoch', 'payload', 'context', 'key', 'signature'])
      .nullable()
      .describe('The first check that did not pass; null when verified or when no certificate was checked.'),
    reason: z.string().describe('Why, in one sentence.'),
    certificate_height: z
      .int()
      .nullable()
      .describe('Height of the certified block: this block or a descendant covering it through the parent-hash chain.'),
    epoch: z.int().nullable().describe('The certificate’s epoch; null before it decoded.'),
    view: z.int().nullable().describe('The certificate’s view; null before it decoded.'),
    key_from_epoch: z.int().nullable().describe('The epoch from which the group key used is held; null when none was used.'),
    anchored: z
      .boolean()
      .describe('True when that key chains back to the configured genesis outcome through verified boundary certificates.'),
    witnesses: z
      .object({
        configured: z.int().describe('Witnesses asked (--witness).'),
        quorum: z.int().describe('Agreeing witnesses wanted (--witness-quorum).'),
        agreeing: z.int().describe('Witnesses that call the height finalized with the same block hash.'),
        disagreeing: z.int().describe('Witnesses that call the height finalized with another hash: an alarm, never an unverification.'),
      })
      .describe('Independent nodes’ testimony at the certified height.'),
    verified_at: z.iso.datetime({ offset: true }).nullable().describe('When the certificate was checked; null while awaiting one.'),
    block_hash: z
      .string()
      .nullable()
      .optional()
      .describe('The block hash the certificate finalizes (its payload), 0x hex; null before it decoded.'),
  })
  .describe('Finality verified from Tempo’s own threshold signatures (docs/integrity.md).');

/** The attribution of a payment leg to services (docs/payments.md, "Attribution in a detail"). */
export const AttributionSchema = z
  .object({
    log_index: z.int().describe('The leg it is about.'),
    server_fingerprint: z
      .string()
      .regex(/^0x[0-9a-f]{20}$/)
      .nullable()
      .describe("The leg's MPP attribution memo's server fingerprint, keccak256(realm)[0..9]; null when the leg has no such memo."),
    client_fingerprint: z
      .string()
      .regex(/^0x[0-9a-f]{20}$/)
      .nullable()
      .describe("The memo's client fingerprint, keccak256(clientId)[0..9]; null when anonymous or no memo."),
    nonce: z
      .string()
      .regex(/^0x[0-9a-f]{14}$/)
      .nullable()
      .describe("The memo's nonce, keccak256(challengeId)[0..6]; null when no memo."),
    candidates: z.array(z.string()).describe('Every service id the evidence matches, sorted; empty when none.'),
    method: z
      .enum(ATTRIBUTION_METHODS)
      .nullable()
      .describe(
        'memo_and_pay_to (memo names the realm AND the recipient is a payTo the service advertised by then), pay_to, or memo (the payer’s claim alone: anyone can write any memo); null when not attributed.',
      ),
    ambiguous: z.boolean().nullable().describe('True when several services matched; null when not attributed.'),
  })
  .describe('How a payment leg was tied to services.');

const retained = (what: string) =>
  z.unknown().optional().describe(`${what}; retained observation data, may be absent or null for older samples.`);

export const TransactionDetailSchema = z
  .looseObject({
    ...transactionShape,
    transaction: retained('The node\u2019s transaction, numbers as strings'),
    receipt: retained('Receipt: status, gas, fee token, fee payer, logs'),
    evidence: z
      .looseObject({ finality: FinalityEvidenceSchema.optional() })
      .nullable()
      .optional()
      .describe(
        'Where and when it was read: block hash, transaction index, source, roots checked, and `finality`; retained observation data, may be absent or null for older samples.',
      ),
    legs: retained('Every TIP-20 value movement except the fee transfer, each with asset_listed and attribution'),
    calls: retained('Calls of a 0x76 batch with target, selector and decoded arguments'),
    forensics: retained(
      'Anything odd: fee mismatch, redirected transfer, virtual-address hops, a token whose symbol imitates a listed one (imitated_symbol)',
    ),
    unknown: retained('Logs no known ABI decodes'),
    settlement: z
      .enum(['eip3009', 'permit2'])
      .nullable()
      .optional()
      .describe(
        'The signed authorization the first settled leg settles: eip3009 (an EIP-3009 transferWithAuthorization: protocol stays null unless its recipient is a payTo of an x402 offer on eip155:4217), permit2 (through an x402 Permit2 proxy); null when none or unknown (details stored before settlements were recognised).',
      ),
    attribution: AttributionSchema.nullable()
      .optional()
      .describe(
        "The transaction's attributed leg (the largest when several; re-derived when read, like the row's service_id); else the leg of its MPP attribution memo with no candidate; null when neither. Each leg of `legs` carries its own `attribution` (same shape, or null).",
      ),
  })
  .describe('A transaction with its retained detail.');

export const TransactionListSchema = z
  .object({
    total: z.int().min(0).describe('Number of all matching observations.'),
    limit: z.int().describe('Page size used.'),
    offset: z.int().describe('Rows skipped.'),
    as_of: z.iso
      .datetime({ offset: true })
      .describe(
        'Time of the store\u2019s last write reflected by this page. Separate requests share no frozen snapshot: fix until, deduplicate hashes.',
      ),
    rows: z.array(TransactionSchema).describe('Matches sorted by time descending, then hash ascending.'),
  })
  .describe('A page of observed transactions.');

/** The quarantined blocks, as /api/status and /api/coverage show them. */
const QuarantineSchema = z
  .object({
    count: z.int().describe('Blocks quarantined.'),
    blocks: z
      .array(
        z.object({
          height: z.int(),
          hash: z.string(),
          reason: z.string().describe('Why its processing failed, one line.'),
          attempts: z.int().describe('Failed attempts so far.'),
          quarantined_at: z.string().describe('When collection moved past it, ISO 8601.'),
        }),
      )
      .describe('The first 100 quarantined blocks, lowest height first.'),
  })
  .describe(
    'Blocks that could not be processed within their budget (failed 3 times in a row): gaps with their reason, which collection moved past; `paywatch collect --retry-quarantined` tries them again.',
  );

export const StatusSchema = z
  .looseObject({
    chain_id: integerConstant(CHAIN_ID).describe('Constant 4217.'),
    source: z.string().nullable().describe('Origin of the JSON-RPC source the collector reads (credentials and path removed).'),
    lag_seconds: z
      .number()
      .nullable()
      .describe('Now minus the time of the newest collected finalized block, seconds; null when nothing is collected.'),
    total_transactions: z.int().describe('Observations stored.'),
    checkpoint: z
      .object({ height: z.int(), hash: z.string(), updated_at: z.string() })
      .nullable()
      .describe('Last block written in order (height, hash, when); null on a fresh store.'),
    collector: z
      .looseObject({
        state: z
          .string()
          .nullable()
          .describe(
            "running, catching_up, stalled, error, stopped, standby (this process's collector waits while another holds the store), or null when no collector has run.",
          ),
        last_block: z.int().nullable().optional(),
        finalized_head: z.int().nullable().optional(),
        rate_tx_per_s: z.number().nullable().optional(),
        rate_blocks_per_s: z.number().nullable().optional(),
        last_error: z.string().nullable().optional(),
        last_error_at: z.string().nullable().optional(),
        updated_at: z.string().nullable().optional(),
        rpc: z
          .looseObject({
            batch_calls: z
              .int()
              .describe(
                'JSON-RPC calls per HTTP request in use (halved when the node refused a batch as too large, then searched back up to its cap by single probes).',
              ),
            batch_calls_ceiling: z.int().describe('The most calls per request allowed (--rpc-batch-calls).'),
            rate_per_s: z.number().nullable().describe('HTTP requests per second the client paces itself to; null = unpaced.'),
            requests: z.int().describe('HTTP requests sent.'),
            refused: z.int().describe('Requests the node refused with 429.'),
            batches_too_large: z.int().describe('Batches the node refused as too large.'),
            retries: z.int().describe('Attempts retried after a failure.'),
            last_error: z
              .object({ message: z.string(), at: z.string() })
              .nullable()
              .describe('The last failure (URLs reduced to scheme and host) and when.'),
          })
          .optional()
          .describe('The JSON-RPC client of the collector running in this process (absent when read from the store).'),
      })
      .describe('The collector\u2019s state, ingest rate and last error (live when it runs in this process).'),
    coverage: z.string().describe('Summary of the collected block intervals; gaps are not zero activity.'),
    quarantine: QuarantineSchema,
    service_sources: z.array(z.looseObject({})).describe('Freshness of the provider (machine-payment service) sources.'),
    replica: z
      .object({
        serving: z
          .enum(['replica', 'primary'])
          .describe('The database that answered: the read replica, or the primary while the replica cannot be reached.'),
        replay_lag_seconds: z
          .number()
          .nullable()
          .describe(
            'Seconds of primary activity the replica has not replayed yet: 0 when caught up, else now minus its last replayed commit time; null when serving from the primary.',
          ),
        replay_lag_bytes: z
          .number()
          .int()
          .nullable()
          .describe('Bytes of WAL written by the primary and not yet replayed by the replica; null when serving from the primary.'),
        replay_paused: z.boolean().nullable().describe('True while replay is paused on the replica; null when serving from the primary.'),
      })
      .nullable()
      .describe(
        'Public reads come from a PostgreSQL read replica (--db-read): its replay lag. Lists, metrics and status may trail the primary by this lag; a transaction detail is also looked up on the primary before a 404. Null when reads use the primary store.',
      ),
    finality: z
      .object({
        verified: z.int().describe('Observations whose block a verified finalization certificate covers.'),
        failed: z.int().describe('Observations whose covering certificate failed a check.'),
        unknown: z.int().describe('Observations awaiting a certificate or whose certificate could not be judged.'),
        last_verified_height: z.int().nullable().describe('Highest block covered by a verified certificate; null when none.'),
        witness_alarm: z
          .object({ witness: z.string(), height: z.int(), reported: z.string(), ours: z.string(), at: z.string() })
          .nullable()
          .describe('The last witness that reported another hash for a height it calls finalized (an alarm), or null.'),
      })
      .describe('Finality of the collected observations, counted as the collector writes.'),
    independent_consensus_verified: z
      .boolean()
      .describe('True when the newest collected block is covered by a verified finalization certificate.'),
    manifest: z.url().describe('The service manifest (/.well-known/paywatch.json): what this is and how to use it.'),
  })
  .describe('Source freshness and collector state.');

export const CoverageSchema = z
  .looseObject({
    intervals: z
      .array(
        z.object({
          first: z.int().describe('First block height (inclusive).'),
          last: z.int().describe('Last block height (inclusive).'),
          blocks: z.int().describe('Number of blocks in the interval.'),
        }),
      )
      .describe('Continuous observed block intervals, lowest first. Gaps between them do not mean zero activity.'),
    quarantine: QuarantineSchema,
    historical: z
      .looseObject({
        retained_from: z.string().describe('ISO 8601: the oldest block time retained; older observations were deleted by retention.'),
        retained_from_time: z.int().describe('The same, UTC Unix seconds.'),
        retained_from_height: z.int().nullable().describe('The lowest block height retained after the last deletion; null if unknown.'),
        dropped_observations: z.int().describe('Observations deleted by retention so far.'),
        note: z.string(),
      })
      .nullable()
      .describe(
        'From where data is retained (--retain-days); null when nothing was ever deleted. The range before it is neither a gap nor zero activity.',
      ),
  })
  .describe('Which block intervals were recorded.');

/** The part of a window the store still holds when retention deleted the rest (src/chain/queries.ts coveredPart). */
const CoveredSchema = z
  .object({
    since: z.int().describe('UTC Unix seconds: the figures count observations from here on only.'),
    until: z.int().nullable().describe('UTC Unix seconds (exclusive), or null: open.'),
    retained_from: z.string().describe('ISO 8601: the oldest block time retained.'),
    note: z.string(),
  })
  .describe('Present when the window starts before the retained data: what before `since` was deleted is unknown here, not zero.');

export const MetricsSchema = z
  .looseObject({
    total: z.int().describe('All matching observations.'),
    analyzed: z.int().describe('Observations aggregated: the latest 50,000 matches at most.'),
    truncated: z.boolean().describe('True when the 50,000 cap applied.'),
    nominal: z
      .string()
      .nullable()
      .describe('Exact decimal sum of known nominal values (USD tokens at 1 dollar per token); null when none is known.'),
    fees: z.string().nullable().describe('Exact decimal sum of known fees in fee-token units; null when none is known.'),
    nominal_known: z.int().describe('Analyzed observations with a known nominal value.'),
    fees_known: z.int().describe('Analyzed observations with a known fee.'),
    distinct_payers: z
      .int()
      .nullable()
      .describe(
        'Distinct payers (who paid, never simply the sender) among analyzed observations, self-payments not counted; null when no analyzed observation has a known payer.',
      ),
    distinct_recipients: z.int().nullable().describe('Distinct known recipients among analyzed observations; null when none is known.'),
    value_method: z.string().describe('The rule behind nominal and fees.'),
    rate: z.number().min(0).max(1).nullable().describe('Share of success among analyzed observations with known execution; null if none.'),
    task_outcomes: z.null().describe('Always null: chain activity does not establish task outcomes.'),
    covered: CoveredSchema.optional(),
  })
  .describe('Aggregates over the latest matching observations; nominal values do not measure revenue.');

const SeriesPartSchema = z
  .object({
    count: z.int().min(0).describe('Observations in the group.'),
    nominal: decimal('Exact sum of known nominal values'),
    fees: decimal('Exact sum of known fees in fee-token units'),
  })
  .describe('Counts and exact sums of one group of observations.');

export const MetricsSeriesSchema = z
  .object({
    bucket: z.enum(['hour', 'day']).describe('Bucket size.'),
    bucket_seconds: z.int().describe('Seconds per bucket (3600 or 86400).'),
    since: z.int().describe('Inclusive start, UTC Unix seconds (given, or until minus 24 hours / 30 days).'),
    until: z.int().describe('Exclusive end, UTC Unix seconds (given, or the end of the current bucket).'),
    total: z.int().describe('All matching observations in [since, until).'),
    analyzed: z.int().describe('Observations aggregated: the latest 50,000 matches at most, as in /api/metrics.'),
    truncated: z.boolean().describe('True when the 50,000 cap applied: buckets older than analyzed_since are not counted.'),
    analyzed_since: z.int().nullable().describe('When truncated, the time of the oldest aggregated observation; else null.'),
    covered: CoveredSchema.optional(),
    value_method: z.string().describe('The rule behind nominal and fees (as in /api/metrics).'),
    assets: z
      .array(z.object({ asset_contract: z.string(), symbol: z.string().describe('Symbol on the token list.') }))
      .describe('Listed tokens that appear in the buckets.'),
    buckets: z
      .array(
        SeriesPartSchema.extend({
          start: z.int().describe('Inclusive bucket start, UTC Unix seconds (clipped to since).'),
          end: z.int().describe('Exclusive bucket end, UTC Unix seconds (clipped to until).'),
          nominal_known: z.int().describe('Observations with a known nominal value.'),
          fees_known: z.int().describe('Observations with a known fee.'),
          execution: z
            .object({ success: SeriesPartSchema, failed: SeriesPartSchema, unknown: SeriesPartSchema })
            .describe('The bucket split by execution.'),
          protocol: z
            .object({ mpp: SeriesPartSchema, x402: SeriesPartSchema, unknown: SeriesPartSchema })
            .optional()
            .describe(
              'With split=protocol only: the bucket split by identified protocol (unknown: none identified; chain activity alone does not establish one).',
            ),
          assets: z
            .array(
              z.object({
                asset_contract: z.string(),
                count: z.int().describe('Observations sending this token.'),
                nominal: z.string().describe('Exact sum of this token\u2019s nominal parts.'),
              }),
            )
            .describe('Nominal split by listed token; the members add up to the bucket\u2019s nominal.'),
        }).describe('One bucket, [start, end). A bucket equals /api/metrics over [start, end) with the same filters when not truncated.'),
      )
      .describe('Buckets oldest first; one without matches has count 0 and null sums (unknown, not zero).'),
  })
  .describe('Metrics per time bucket; nominal values do not measure revenue.');

/**
 * The shapes of the public API answers the explorer reads: the server's own response schemas and answer types,
 * imported as types only (erased by the build: nothing of the server is bundled). The OpenAPI document at
 * /api/openapi.json is generated from the same schemas.
 */
import type { z } from 'zod';
import type {
  AttributionSchema,
  CoverageSchema,
  IntegritySchema,
  StatusSchema,
  TransactionDetailSchema,
  TransactionListSchema,
  TransactionSchema,
} from '../../src/chain/schemas';
import type { ChangesResponse, CheckSchema, HistoryResponse, OfferSchema, ProvidersResponse } from '../../src/intel/schemas';
import type { CheckAnswer as CheckAnswerSchema } from '../../src/trust/schemas';
import type { PaymentsSchema, ProviderProfileWithPayments, RankingSchema } from '../../src/chain/payments-schemas';
import type { ServedLeg } from '../../src/domain/listing';
import type { DecodedCall } from '../../src/chain/decode/calls';

/** The attribution of a payment leg (a detail's `attribution` and each leg's). */
export type Attribution = z.infer<typeof AttributionSchema>;

/** GET /api/transactions rows. */
export type Row = z.infer<typeof TransactionSchema>;
export type Integrity = z.infer<typeof IntegritySchema>;
/** A leg of a transaction's detail, with asset_listed. */
export type Leg = ServedLeg;

/**
 * GET /api/transactions/{hash}: the schema describes the retained members as open (`unknown`); their shapes are the
 * decoder's (legs with asset_listed, 0x76 calls) and the node's receipt.
 */
export type Detail = z.infer<typeof TransactionDetailSchema> & {
  transaction?: Record<string, unknown> | null;
  evidence?: Record<string, unknown> | null;
  receipt?: { status?: string; fee_token?: string | null; fee_payer?: string | null; gas_used?: string; logs?: unknown[] } | null;
  legs?: (Leg & { attribution?: Attribution | null })[] | null;
  calls?: DecodedCall[] | null;
  forensics?: Record<string, unknown>[] | null;
  unknown?: unknown[] | null;
};

export type List = z.infer<typeof TransactionListSchema>;
export type Status = z.infer<typeof StatusSchema>;
export type Coverage = z.infer<typeof CoverageSchema>;

/** GET /api/metrics/series: the server's own answer type. */
export type { MetricsSeries as Series } from '../../src/store/chain/answers';

export type Check = z.infer<typeof CheckSchema>;
export type Offer = z.infer<typeof OfferSchema>;
export type Providers = z.infer<typeof ProvidersResponse>;
export type ProviderProfile = z.infer<typeof ProviderProfileWithPayments>;
export type Payments = z.infer<typeof PaymentsSchema>;
export type Ranking = z.infer<typeof RankingSchema>;
export type Change = z.infer<typeof ChangesResponse>['changes'][number];
export type Changes = z.infer<typeof ChangesResponse>;
export type History = z.infer<typeof HistoryResponse>;
export type CheckAnswer = z.infer<typeof CheckAnswerSchema>;

/**
 * The member of /.well-known/paywatch.json the explorer reads (ManifestBody of src/api/routes/manifest.ts, whose
 * module brings the server's listener code and cannot be type-checked for the browser).
 */
export type Manifest = { trust_check: { url: string } };

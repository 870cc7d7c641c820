/**
 * The observation of one finalized transaction: what the collector writes and the public API serves.
 * Addresses are lower-case 0x hex. Money members are exact decimal strings (see ./money.ts) or null when unknown.
 * Source of the shape: the Transaction, Integrity and TransactionDetail objects of docs/api-chain.md.
 */
export const CHAIN_ID = 4217 as const;

export type Execution = 'success' | 'failed' | 'unknown';
/** How a payment leg was tied to a service (docs/decoding.md, "Attribution to services"). */
export type AttributionMethod = 'memo_and_pay_to' | 'memo' | 'pay_to';
/** Every AttributionMethod, in the order answers list them. */
export const ATTRIBUTION_METHODS = ['memo_and_pay_to', 'memo', 'pay_to'] as const satisfies readonly AttributionMethod[];
export type StageStatus = 'pass' | 'fail' | 'unknown';

/** One evaluated integrity stage (docs/integrity.md). */
export interface IntegrityStage {
  level: number;
  label: string;
  status: StageStatus;
  reason: string;
}

/** The `integrity` member of a transaction. `score` = consecutive passed stages from stage 1. */
export interface Integrity {
  score: number;
  maximum: 5;
  version: string;
  scope: string;
  stages: IntegrityStage[];
  name?: string;
  status?: string;
  label?: string;
  /** ISO 8601 date-time. */
  evaluated_at?: string;
  /** True once a finalization certificate covering the block verified (src/chain/consensus); false until then. */
  independent_consensus_verified?: boolean;
}

/**
 * A TIP-20 value movement inside a transaction (never the fee transfer). `amount` is a decimal string. The token is
 * referenced by `asset_contract`; its symbol is stored once per token in the detail's `assets` and added back to
 * each leg when served (legs stored before that carry `asset` themselves).
 */
export interface Leg {
  from: string;
  to: string;
  /** Token symbol: only in legs stored before `ObservationDetail.assets` (the served leg always has it). */
  asset?: string | null;
  asset_contract: string;
  /** Exact decimal string in token units; atomic integer string when decimals are unknown. */
  amount: string;
  /** Atomic integer string, always present. */
  amount_atomic: string;
  log_index: number;
  memo?: string | null;
  kind?: 'transfer' | 'mint' | 'burn';
  /**
   * Who paid: the `from` of this transfer (the authorizer of an EIP-3009 authorization, the owner of a Permit2
   * transfer); null for a mint. Lower-case 0x address. Absent in older samples.
   */
  payer?: string | null;
  /** The signed authorization this transfer settles: EIP-3009, Permit2 through an x402 proxy, or null. Absent in older samples. */
  settlement?: 'eip3009' | 'permit2' | null;
  /** The x402 Permit2 proxy variant it went through ("exact", "upto"), or null. Absent in older samples. */
  x402_proxy?: 'exact' | 'upto' | null;
}

/** A decoded MPP attribution memo (src/chain/decode/attribution.ts) and the leg that carries it. */
export interface AttributionMemo {
  /** log_index of the leg whose memo it is. */
  log_index: number;
  version: number;
  /** keccak256(serverId)[0..9], 0x + 20 hex digits: mppx clients pass the challenge's realm as serverId. */
  server_fingerprint: string;
  /** keccak256(clientId)[0..9], or null for an anonymous client. */
  client_fingerprint: string | null;
  /** keccak256(challengeId)[0..6], 0x + 14 hex digits. */
  nonce: string;
}

/**
 * What the sender sent in one token whose `currency()` is "USD" (decimals known), fee excluded: the
 * list-independent part of the nominal value. `nominal` counts only the parts whose token is listed
 * (src/domain/listing.ts), so a changed token list needs no re-collection.
 */
export interface NominalPart {
  /** Lower-case token contract. */
  asset_contract: string;
  /** Exact decimal string in token units. */
  amount: string;
}

/** Retained observation data served only by the detail endpoint. Inner shapes are documented in docs/decoding.md. */
export interface ObservationDetail {
  transaction: Record<string, unknown> | null;
  receipt: Record<string, unknown> | null;
  evidence: Record<string, unknown> | null;
  legs: Leg[] | null;
  calls: Record<string, unknown>[] | null;
  forensics: Record<string, unknown>[] | null;
  unknown: Record<string, unknown>[] | null;
  /** Symbol of each token the legs move (null when unknown), by lower-case contract, once per token. Absent in older samples. */
  assets?: Record<string, string | null> | null;
  /** The transaction's payer: the payer of the primary leg (lower-case), null when none. Absent in older samples. */
  payer?: string | null;
  /** Settlement kind of the first leg that settles an authorization, or null. Absent in older samples. */
  settlement?: 'eip3009' | 'permit2' | null;
  /** The MPP attribution memo of the largest MPP-tagged leg, or null. Absent in older samples. */
  attribution?: AttributionMemo | null;
}

/** The TypeScript type of each member kind, as an Observation and the public Transaction hold it. */
export interface MemberTypes {
  /** Lower-case 0x transaction hash. */
  hash: `0x${string}`;
  int: number;
  chain_id: typeof CHAIN_ID;
  /** Lower-case 0x address. */
  address: string;
  text: string;
  /** Exact decimal string (./money.ts). */
  decimal: string;
  boolean: boolean;
  /** How a payment was tied to a service (src/payments/attribute.ts). */
  attribution_method: AttributionMethod;
  /** Ten bytes of a keccak256 digest, 0x + 20 lower-case hex digits (an MPP attribution memo's fingerprint). */
  fingerprint: string;
  execution: Execution;
  integrity: Integrity;
  nominal_parts: NominalPart[];
  detail: ObservationDetail;
}

/** How a member is stored as a column of the `observations` table (src/store/tables/chain.ts types each one). */
export type StoredAs = 'bigint' | 'integer' | 'text' | 'json';

/** One member of a transaction's observation: its kind, where it lives and whether it is served. */
export interface TransactionMember {
  kind: keyof MemberTypes;
  /** Null when unknown. */
  nullable: boolean;
  /**
   * A member of Observation (what the decoder produces); false for members derived when a row is read, or derived
   * when it is written (from the detail, or by the payment matcher) and stored.
   */
  observed: boolean;
  /** Its column in the `observations` table, or null when it is not one. */
  stored: StoredAs | null;
  /** Its description as a public Transaction member (docs/api-chain.md), or null when it is not served. */
  served: string | null;
  /**
   * True for a served member added after the contract's Transaction: always present in answers, but not required by
   * the public schema, so the contract's required members stay exactly its own.
   */
  additive?: true;
}

/**
 * Every member of a transaction's observation, declared once: Observation, the `observations` table's columns
 * (src/store/tables/chain.ts), the columns lists read (LIST_COLUMNS, src/store/chain/rows.ts) and the public
 * Transaction's zod schema (src/chain/schemas.ts) are derived from it. Served members are in the order the
 * OpenAPI document lists them.
 */
export const TRANSACTION_MEMBERS = {
  hash: { kind: 'hash', nullable: false, observed: true, stored: 'text', served: 'Transaction hash.' },
  time: {
    kind: 'int',
    nullable: false,
    observed: true,
    stored: 'bigint',
    served: 'Block timestamp, UTC Unix seconds reported by the source block.',
  },
  height: { kind: 'int', nullable: false, observed: true, stored: 'bigint', served: 'Block height.' },
  /** Position of the transaction in its block (ties broken by it). */
  tx_index: { kind: 'int', nullable: false, observed: true, stored: 'integer', served: null },
  integrity: {
    kind: 'integrity',
    nullable: false,
    observed: true,
    stored: 'json',
    served: 'Evidence available for this observation; describes evidence, not honesty or task success.',
  },
  chain_id: { kind: 'chain_id', nullable: false, observed: true, stored: 'integer', served: 'Constant 4217 (Tempo mainnet).' },
  sender: {
    kind: 'address',
    nullable: true,
    observed: true,
    stored: 'text',
    served:
      'Sender wallet (the transaction\u2019s from); identifies an account, not a verified bot: lower-case 0x address; null when unknown.',
  },
  recipient: {
    kind: 'address',
    nullable: true,
    observed: true,
    stored: 'text',
    served:
      'Recipient of the primary leg, else the transaction\u2019s (or first call\u2019s) to: lower-case 0x address; null when unknown.',
  },
  asset: {
    kind: 'text',
    nullable: true,
    observed: true,
    stored: 'text',
    served:
      'Token symbol of the primary leg (from the chain; anyone can create a token with any symbol, so check asset_listed); null when unknown.',
  },
  asset_contract: {
    kind: 'address',
    nullable: true,
    observed: true,
    stored: 'text',
    served: 'Token contract of the primary leg: lower-case 0x address; null when unknown.',
  },
  /** Derived with the token list when read (src/domain/listing.ts). */
  asset_listed: {
    kind: 'boolean',
    nullable: true,
    observed: false,
    stored: null,
    served:
      'Whether asset_contract is on the token list this service uses (by contract, never by symbol); only listed USD tokens count in nominal. null when there is no asset.',
  },
  amount: {
    kind: 'decimal',
    nullable: true,
    observed: true,
    stored: 'text',
    served:
      'Amount of the primary leg in token units (atomic integer when decimals are unknown): exact decimal string (no exponent, no float); null when unknown.',
  },
  /** The sender's USD-token parts, one per contract; null when none (see NominalPart). Stored as JSON `[[contract, amount], …]`. */
  nominal_parts: { kind: 'nominal_parts', nullable: true, observed: true, stored: 'json', served: null },
  /** Derived from nominal_parts with the token list when read (src/domain/listing.ts). */
  nominal: {
    kind: 'decimal',
    nullable: true,
    observed: false,
    stored: null,
    served:
      'Dollar value of what the sender sent in listed tokens whose currency() is USD, at 1 dollar per token, fee excluded: exact decimal string (no exponent, no float); null when unknown.',
  },
  fee: {
    kind: 'decimal',
    nullable: true,
    observed: true,
    stored: 'text',
    served: 'Fee in fee-token units: exact decimal string (no exponent, no float); null when unknown.',
  },
  exchange: {
    kind: 'text',
    nullable: true,
    observed: true,
    stored: 'text',
    served: 'Venue name when the transaction trades; null when none was identified.',
  },
  protocol: { kind: 'text', nullable: true, observed: true, stored: 'text', served: 'Identified protocol (e.g. mpp); null when none.' },
  category: {
    kind: 'text',
    nullable: true,
    observed: true,
    stored: 'text',
    served: 'Category (transfer, payment, swap, liquidity, mint, burn, contract_call, system).',
  },
  execution: {
    kind: 'execution',
    nullable: false,
    observed: true,
    stored: 'text',
    served: 'success, failed (receipt status 0), or unknown (no receipt).',
  },
  decode: {
    kind: 'text',
    nullable: false,
    observed: true,
    stored: 'text',
    served:
      'How completely the transaction was decoded: `full`; `partial: <reasons>` (reasons joined by `; `, e.g. `partial: 1 undecoded call(s)`, `partial: atomic amounts, decimals unknown for 0x…`); or `none: no receipt` (docs/decoding.md). Match on the word before the colon.',
  },
  /**
   * Who paid (docs/decoding.md, "Payer"): the detail's `payer`, the payer of the primary leg. Derived from the
   * detail when the row is written (src/store/chain/payment-columns.ts), hence not an Observation member.
   */
  payer: {
    kind: 'address',
    nullable: true,
    observed: false,
    stored: 'text',
    served:
      'Who paid: the from of the transfer to the recipient (the authorizer of an EIP-3009 authorization, the owner of a Permit2 transfer), never simply the sender (for x402 the facilitator): lower-case 0x address; null when unknown or nobody paid (a mint).',
    additive: true,
  },
  /** payer = recipient of the primary leg; null when either is unknown. Stored 0/1. Derived like `payer`. */
  self_payment: {
    kind: 'boolean',
    nullable: true,
    observed: false,
    stored: 'integer',
    served: 'True when the payer is the recipient (a self-payment, never a distinct payer); null when either is unknown.',
    additive: true,
  },
  /** The attribution memo's client fingerprint (the detail's `attribution`); null when anonymous or none. */
  client_fingerprint: {
    kind: 'fingerprint',
    nullable: true,
    observed: false,
    stored: 'text',
    served:
      "Client fingerprint of the transaction's MPP attribution memo, keccak256(clientId)[0..9] as 0x + 20 hex digits: what the payer's software wrote, not a verified identity; null when anonymous or when there is no memo.",
    additive: true,
  },
  /** The attribution memo's server fingerprint, what the matcher looks realms up by; null when no memo. */
  server_fingerprint: { kind: 'fingerprint', nullable: true, observed: false, stored: 'text', served: null },
  /**
   * The service the payment is attributed to (src/payments/attribute.ts), re-derived when the intel changes; the
   * first of the candidates when ambiguous. Null when none.
   */
  service_id: {
    kind: 'text',
    nullable: true,
    observed: false,
    stored: 'text',
    served:
      'The service the payment is attributed to (64 hex digits, docs/intelligence.md), the first by id when several match (the detail lists them); re-derived when new realms or payTos are seen. null when not attributed.',
    additive: true,
  },
  /** That service's provider (a domain); null when none. */
  provider: {
    kind: 'text',
    nullable: true,
    observed: false,
    stored: 'text',
    served: "That service's provider (a domain); null when not attributed.",
    additive: true,
  },
  /** memo_and_pay_to, memo or pay_to (docs/decoding.md, "Attribution"); null when not attributed. */
  attribution_method: {
    kind: 'attribution_method',
    nullable: true,
    observed: false,
    stored: 'text',
    served:
      "How the payment was tied to service_id: memo_and_pay_to (the MPP memo names the service's realm AND the recipient is a payTo it advertised by then), pay_to (the recipient is such a payTo), memo (the memo alone: anyone can write any memo, so this is the payer's claim); null when not attributed.",
    additive: true,
  },
  /** Several services matched (stored 0/1); null when not attributed. */
  attribution_ambiguous: { kind: 'boolean', nullable: true, observed: false, stored: 'integer', served: null },
  /** Retained data served only by the detail endpoint; stored in its own table (observation_details). */
  detail: { kind: 'detail', nullable: false, observed: true, stored: null, served: null },
} as const satisfies Record<string, TransactionMember>;

type Members = typeof TRANSACTION_MEMBERS;
/** The name of any member in TRANSACTION_MEMBERS. */
export type MemberName = keyof Members;
/** Members of an Observation. */
export type ObservedMember = { [K in MemberName]: Members[K]['observed'] extends true ? K : never }[MemberName];
/** Members stored as columns of the `observations` table. */
export type StoredMember = { [K in MemberName]: Members[K]['stored'] extends StoredAs ? K : never }[MemberName];
/** Members of the public Transaction. */
export type ServedMember = { [K in MemberName]: Members[K]['served'] extends string ? K : never }[MemberName];
/** `T`, or `T | null` when member `K` is nullable. */
export type NullableAs<K extends MemberName, T> = Members[K]['nullable'] extends true ? T | null : T;
/** The TypeScript type of member `K`'s value. */
export type MemberValue<K extends MemberName> = NullableAs<K, MemberTypes[Members[K]['kind']]>;

/** One observation: the public Transaction members plus the in-block position, the nominal parts and the detail. */
export type Observation = { [K in ObservedMember]: MemberValue<K> };

/** The observations of one finalized block, written atomically with its coverage and the checkpoint. */
export interface BlockObservations {
  height: number;
  hash: `0x${string}`;
  /** Block timestamp, UTC Unix seconds. */
  time: number;
  observations: Observation[];
}

/** The shapes of the public API answers the explorer reads (the OpenAPI document at /api/openapi.json has them all). */

export type Stage = { level: number; label: string; status: 'pass' | 'fail' | 'unknown'; reason: string };
export type Integrity = {
  score: number;
  maximum: number;
  version: string;
  scope: string;
  stages: Stage[];
  independent_consensus_verified?: boolean;
  evaluated_at?: string;
};

export type Row = {
  hash: string;
  time: number;
  height: number;
  sender: string | null;
  recipient: string | null;
  asset: string | null;
  asset_contract: string | null;
  asset_listed: boolean | null;
  amount: string | null;
  nominal: string | null;
  fee: string | null;
  exchange: string | null;
  protocol: string | null;
  category: string | null;
  execution: 'success' | 'failed' | 'unknown';
  decode: string;
  integrity: Integrity;
};

export type Leg = {
  from: string;
  to: string;
  asset: string | null;
  asset_contract: string;
  amount: string;
  amount_atomic: string;
  log_index: number;
  memo?: string | null;
  kind?: string;
  asset_listed: boolean;
};
export type Call = {
  index: number;
  target: string | null;
  selector: string | null;
  function?: string | null;
  args?: Record<string, unknown> | null;
  value?: string | null;
};

export type Detail = Row & {
  transaction?: Record<string, unknown> | null;
  receipt?: { status?: string; fee_token?: string | null; fee_payer?: string | null; gas_used?: string; logs?: unknown[] } | null;
  evidence?: Record<string, unknown> | null;
  legs?: Leg[] | null;
  calls?: Call[] | null;
  forensics?: Record<string, unknown>[] | null;
  unknown?: unknown[] | null;
};

export type List = { total: number; limit: number; offset: number; as_of: string; rows: Row[] };

export type Status = {
  lag_seconds: number | null;
  total_transactions: number;
  source: string | null;
  checkpoint: { height: number; hash: string; updated_at: string } | null;
  collector: { state?: string | null; finalized_head?: number | null; last_error?: string | null; last_error_at?: string | null } | null;
  coverage: string;
};

export type Coverage = { intervals: { first: number; last: number; blocks: number }[] };

export type Metrics = {
  total: number;
  analyzed: number;
  truncated: boolean;
  nominal: string | null;
  fees: string | null;
  rate: number | null;
  value_method: string;
};

/** GET /api/metrics/series: the server's own answer type (type-only, nothing of the server is bundled). */
export type { MetricsSeries as Series } from '../../src/store/chain/answers';

export type Check = {
  snapshot_id: string;
  checked_at: string;
  outcome: string;
  http_status: number | null;
  latency_ms: number | null;
  error: string | null;
  evidence_hash: string | null;
};
export type Offer = {
  protocol: string | null;
  scheme: string | null;
  network: string | null;
  asset: string | null;
  amount: string | null;
  amount_atomic: string | null;
  pay_to: string | null;
  description?: string | null;
};
export type Price = {
  network: string;
  asset: string;
  min_amount: string | null;
  max_amount: string | null;
  min_amount_atomic: string;
  max_amount_atomic: string;
};
export type ProviderSummary = {
  domain: string;
  last_seen: string;
  networks: string[];
  protocols: string[];
  prices: Price[];
  services_total: number;
  stale: boolean;
  latest_check: { checked_at: string; outcome: string; http_status: number | null } | null;
};
export type Providers = { disclaimer: string; total: number; limit: number; offset: number; providers: ProviderSummary[] };
export type ProviderProfile = {
  disclaimer: string;
  provider: {
    domain: string;
    first_seen: string;
    last_seen: string;
    services: {
      service_id: string;
      method: string;
      url: string;
      description: string | null;
      stale: boolean;
      latest_check: Check | null;
      offers: Offer[];
      checks: Check[];
    }[];
  };
};
export type Change = {
  id: number;
  service_id: string;
  domain: string;
  kind: string;
  at: string;
  before_snapshot_id: string | null;
  after_snapshot_id: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
};
export type Changes = { disclaimer: string; total: number; changes: Change[] };
export type History = {
  disclaimer: string;
  total: number;
  limit: number;
  offset: number;
  checks: (Check & { service_id: string; domain: string; offers: Offer[] })[];
};
export type Manifest = { trust_check: { url: string } };
export type CheckAnswer = {
  url: string;
  checked_at: string;
  verdict: 'pay' | 'caution' | 'do_not_pay';
  reasons: { code: string; severity: string; message: string }[];
  offers?: Offer[];
  snapshot_id?: string | null;
  evidence_hash?: string | null;
  disclaimers?: string[];
};

/**
 * The payee-only trust check (POST {verify_url}/v1/check/pay-to, tool check_pay_to): a verdict on a payTo address
 * from our chain observations and intel history alone, fetching nothing: its observed inbound payments in listed
 * tokens, the listed services that advertise or advertised it, and the recorded payTo changes that moved a service
 * to it, and who pays it (./payers.ts). Recorded in trust_checks like a URL check, under the CAIP-10 account id `network:address`.
 */
import { uuidv7 } from '../intel/probe/snapshot-id.js';
import type { Store } from '../store/db.js';
import { recordCheck } from '../store/trust/index.js';
import { changesToPayTo, servicesPayingTo } from '../store/trust/pay-to.js';
import { assessPayTo } from './assess.js';
import { type CheckPayer, DISCLAIMERS } from './check.js';
import { observesNetwork, payToActivity } from './gather.js';
import { analysePayers } from './payers.js';
import type { PayToEvidence, PayToListedService, PayToSignals, Reason, Verdict } from './types.js';

/** The network a payee-only check looks at when the request names none (Tempo mainnet). */
export const DEFAULT_PAY_TO_NETWORK = 'eip155:4217';

/** The answer of POST /v1/check/pay-to (every member documented in GET /v1/openapi.json). */
export interface PayToCheckAnswer {
  /** Lower-case 0x address. */
  pay_to: string;
  network: string;
  /** ISO 8601. */
  checked_at: string;
  verdict: Verdict;
  reasons: Reason[];
  /** Listed services that advertise or advertised the payTo, newest advertisement first (at most 100). */
  services: PayToListedService[];
  signals: PayToSignals;
  /** Id of this check (UUID v7); nothing is fetched, so there is no archived evidence (evidence_hash null). */
  snapshot_id: string;
  evidence_hash: null;
  disclaimers: readonly string[];
}

/** What a payee-only check reads. */
export interface PayToCheckOptions {
  store: Store;
  /** How far back recorded payTo changes count, days (PAYWATCH_TRUST_CHANGE_WINDOW_DAYS). */
  changeWindowDays: number;
  now?: Date;
}

/**
 * Gathers the evidence of a payee-only check.
 * @param payTo 0x address, 40 hex digits (validated by the route), any case
 * @param network CAIP-2 network
 * @throws the store's error when the store cannot answer (→ 503, not metered)
 */
export async function gatherPayTo(payTo: string, network: string, o: PayToCheckOptions): Promise<PayToEvidence> {
  const now = o.now ?? new Date();
  const address = payTo.toLowerCase();
  const since = new Date(now.getTime() - o.changeWindowDays * 86_400_000).toISOString();
  const [activity, listed, changes, payers] = await Promise.all([
    payToActivity(o.store, address, network),
    servicesPayingTo(o.store, address, network),
    changesToPayTo(o.store, address, since),
    observesNetwork(network) ? analysePayers(o.store, address, { now }) : Promise.resolve(null),
  ]);
  const moved = changes.filter((c) => (c.after as { network?: unknown } | null)?.network === network);
  return {
    pay_to: address,
    network,
    activity,
    services: listed.services,
    services_total: listed.total,
    recent_changes: { window_days: o.changeWindowDays, since, changes: moved, new_pay_to_activity: [activity] },
    payers,
  };
}

/**
 * Runs a payee-only check and records it.
 * @throws the store's error (→ 503)
 */
export async function runPayToCheck(
  payTo: string,
  network: string,
  o: PayToCheckOptions,
  who: CheckPayer = { keyId: null, payer: null },
): Promise<PayToCheckAnswer> {
  const now = o.now ?? new Date();
  const ev = await gatherPayTo(payTo, network, { ...o, now });
  const { verdict, reasons, signals } = assessPayTo(ev, now);
  const answer: PayToCheckAnswer = {
    pay_to: ev.pay_to,
    network,
    checked_at: now.toISOString(),
    verdict,
    reasons,
    services: ev.services,
    signals,
    snapshot_id: uuidv7(now.getTime()),
    evidence_hash: null,
    disclaimers: DISCLAIMERS,
  };
  await recordCheck(o.store, {
    snapshot_id: answer.snapshot_id,
    url: `${network}:${ev.pay_to}`,
    checked_at: answer.checked_at,
    verdict,
    evidence_hash: null,
    key_id: who.keyId,
    payer: who.payer,
    payment_tx: null,
    answer: JSON.stringify(answer),
    evidence: null,
  });
  return answer;
}

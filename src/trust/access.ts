/**
 * The two ways a trust check is paid for, each from request to answer: an API key (a reservation against the
 * key's monthly quota, committed when the check succeeds and released when it fails: docs/trust-check.md#access-keys-and-metering),
 * or one x402 payment per call (verified before the check, settled after a successful one, cancelled after a
 * failed one). The listener (./app.ts) picks one and sends what it returns.
 */
import type { FastifyRequest } from 'fastify';
import type { Store } from '../store/db.js';
import type { TrustApiKeyRow } from '../store/trust/index.js';
import { httpAnswerOf } from '../http/errors.js';
import { trustChecks } from '../ops/metrics.js';
import { type CheckPayer, recordCheckPayment } from './check.js';
import { noteKeyUse } from './keys.js';
import { reserve } from './metering.js';
import type { PaymentGate } from './payment.js';
import type { Verdict } from './types.js';

/**
 * One check's work for `who`, recorded in trust_checks (a URL check, src/trust/check.ts runCheck, or a payee-only
 * check, src/trust/pay-to.ts): its answer names the verdict and the recorded check's snapshot id.
 */
export type CheckRun = (who: CheckPayer) => Promise<{ verdict: Verdict; snapshot_id: string }>;

/** An answer to send as it is: status, headers and JSON body. */
export interface CheckReply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * Runs a check paid for by `key`: reserves one check of its quota, runs the check, and meters it only if it
 * succeeded (a do_not_pay verdict is a success; a bad input or a failure of ours is not).
 * @param run the check's work
 * @returns 200 with the check's answer
 * @throws LimitExceeded (429) when the key's quota is spent; whatever the check throws (the reservation released)
 */
export async function checkWithKey(store: Store, key: TrustApiKeyRow, run: CheckRun): Promise<CheckReply> {
  const reservation = await reserve(store, key);
  try {
    const answer = await run({ keyId: key.id, payer: null });
    await reservation.commit();
    // The key's last use keeps a free key from expiring (at most one write a day); a failure here must not fail the check.
    await noteKeyUse(store, key.id).catch(() => undefined);
    trustChecks.inc({ verdict: answer.verdict, access: 'key' });
    return { status: 200, headers: { 'cache-control': 'no-store' }, body: answer };
  } catch (e) {
    await reservation.release().catch(() => undefined);
    throw e;
  }
}

/**
 * Runs a check paid per call with x402: without a valid payment, the 402 challenge; with one, the check, then
 * settlement (unless the client has gone: then cancelled), and the settlement's transaction recorded with the check.
 * @returns the 402 challenge, a failed settlement's answer, or 200 with the check's answer and PAYMENT-RESPONSE
 * @throws whatever the check throws (the payment cancelled, never settled)
 */
export async function checkWithPayment(store: Store, gate: PaymentGate, req: FastifyRequest, run: CheckRun): Promise<CheckReply> {
  const decision = await gate.process(req);
  if (decision.kind === 'respond') return { status: decision.status, headers: decision.headers, body: decision.body };
  let answer: Awaited<ReturnType<CheckRun>>;
  try {
    answer = await run({ keyId: null, payer: decision.payer });
  } catch (e) {
    await decision.cancel(httpAnswerOf(e)?.status ?? 500);
    throw e;
  }
  // A client gone before its answer is not charged for it: the payment is cancelled, never settled.
  if (req.raw.socket?.destroyed) {
    await decision.cancel(499);
    return { status: 499, headers: {}, body: { error: 'client closed the connection before the answer: not settled' } };
  }
  const settled = await decision.settle();
  if (!settled.ok) return { status: settled.status, headers: settled.headers, body: settled.body };
  await recordCheckPayment(store, answer.snapshot_id, settled.payer, settled.transaction);
  trustChecks.inc({ verdict: answer.verdict, access: 'x402' });
  return { status: 200, headers: { ...settled.headers, 'cache-control': 'private, no-store' }, body: answer };
}

/**
 * x402 per-call payment for POST /v1/check without a key (docs/trust-check.md: 0.01 dollars per
 * successful call). Built on the x402 libraries: x402ResourceServer + x402HTTPResourceServer from
 * @x402/core/server with the @x402/evm exact scheme, verifying and settling through the configured facilitator
 * (HTTPFacilitatorClient). Settlement happens only after the check succeeded; a failed check is never settled.
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import {
  HTTPFacilitatorClient,
  x402HTTPResourceServer,
  x402ResourceServer,
  getFacilitatorResponseError,
  type HTTPAdapter,
  type HTTPRequestContext,
} from '@x402/core/server';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import type { Config } from '../config.js';
import { PaywatchError, Unavailable, shortMessage } from '../domain/errors.js';
import { CHECK_PRICE_DOLLARS } from './metering.js';

/** The routes the payment protects: the URL check and the payee-only check, at one price. */
export const CHECK_ROUTE = 'POST /v1/check';
export const PAY_TO_ROUTE = 'POST /v1/check/pay-to';

/** Atomic amount of 0.01 dollars in a token with `decimals` decimals (1 token = 1 dollar). */
export function checkPriceAtomic(decimals: number): string {
  const [int, frac = ''] = CHECK_PRICE_DOLLARS.split('.');
  return BigInt(int + frac.padEnd(decimals, '0').slice(0, decimals)).toString();
}

/** What processPayment decided. */
export type PaymentDecision =
  /** No valid payment: send this 402 (or other) answer as is. */
  | { kind: 'respond'; status: number; headers: Record<string, string>; body: unknown }
  /** Payment verified: run the check, then call settle() (success) or cancel() (failure). */
  | { kind: 'verified'; payer: string | null; settle(): Promise<SettleOutcome>; cancel(status: number): Promise<void> };

/** Result of settling after a successful check. */
export type SettleOutcome =
  | { ok: true; headers: Record<string, string>; transaction: string; payer: string | null }
  | { ok: false; status: number; headers: Record<string, string>; body: unknown };

/** Per-call payment gate; null when x402 is not configured (then a request without a key gets 401). */
export interface PaymentGate {
  /** The request's payment state: 402 to send, or a verified payment to settle after the check. */
  process(req: FastifyRequest): Promise<PaymentDecision>;
}

/** Fastify request → the x402 library's HTTP adapter. */
function adapter(req: FastifyRequest): HTTPAdapter {
  const header = (name: string) => {
    const v = req.headers[name.toLowerCase()];
    return Array.isArray(v) ? v[0] : v;
  };
  return {
    getHeader: header,
    getMethod: () => req.method,
    getPath: () => req.url.split('?')[0],
    getUrl: () => `${req.protocol}://${req.host}${req.url}`,
    getAcceptHeader: () => header('accept') ?? '',
    getUserAgent: () => header('user-agent') ?? '',
  };
}

/**
 * A v1-compatible 402 body next to the v2 PAYMENT-REQUIRED header: `{error, x402Version: 1, accepts}` with
 * v1 field names (maxAmountRequired, resource). The network stays CAIP-2 (v1 clients that only know names
 * such as "base-sepolia" read the header instead).
 */
function v1Body(headers: Record<string, string>, error: string, resourceUrl: string): unknown {
  const encoded = Object.entries(headers).find(([k]) => k.toLowerCase() === 'payment-required')?.[1];
  let accepts: unknown[] = [];
  if (encoded) {
    try {
      const pr = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as {
        accepts?: Record<string, unknown>[];
        resource?: { url?: string; description?: string; mimeType?: string };
      };
      accepts = (pr.accepts ?? []).map((a) => ({
        scheme: a.scheme,
        network: a.network,
        maxAmountRequired: a.amount,
        asset: a.asset,
        payTo: a.payTo,
        resource: pr.resource?.url ?? resourceUrl,
        description: pr.resource?.description ?? 'paywatch trust check',
        mimeType: 'application/json',
        maxTimeoutSeconds: a.maxTimeoutSeconds,
        extra: a.extra,
      }));
    } catch {
      accepts = [];
    }
  }
  return { error, x402Version: 1, accepts };
}

/**
 * Builds the payment gate from the configuration.
 * @param checkUrl the advertised address of POST /v1/check (the payee-only check is `${checkUrl}/pay-to`)
 * @returns null when x402PayTo, x402Asset or x402FacilitatorUrl is not set
 */
export function paymentGate(config: Config, checkUrl: string): PaymentGate | null {
  const { x402PayTo: payTo, x402Asset: asset } = config;
  if (!payTo || !asset || !config.x402FacilitatorUrl) return null;
  const facilitator = new HTTPFacilitatorClient({ url: config.x402FacilitatorUrl, timeoutMs: 15_000 });
  const server = new x402ResourceServer(facilitator).register(config.x402Network as `${string}:${string}`, new ExactEvmScheme());
  const route = (resourceUrl: string) => ({
    accepts: {
      scheme: 'exact',
      network: config.x402Network as `${string}:${string}`,
      payTo: payTo.toLowerCase(),
      price: {
        amount: checkPriceAtomic(config.x402AssetDecimals),
        asset: asset.toLowerCase(),
        extra: { name: config.x402AssetName, version: config.x402AssetVersion },
      },
      maxTimeoutSeconds: 120,
    },
    resource: resourceUrl,
    description: `paywatch trust check: ${CHECK_PRICE_DOLLARS} dollars per successful check`,
    mimeType: 'application/json',
  });
  const http = new x402HTTPResourceServer(server, { [CHECK_ROUTE]: route(checkUrl), [PAY_TO_ROUTE]: route(`${checkUrl}/pay-to`) });
  let ready: Promise<void> | null = null;
  const init = async () => {
    ready ??= http.initialize().catch((e) => {
      ready = null;
      throw e;
    });
    try {
      await ready;
    } catch (e) {
      throw new Unavailable(`payment facilitator unavailable: ${(getFacilitatorResponseError(e) ?? (e as Error)).message}`.slice(0, 300), {
        retryAfterSeconds: 10,
      });
    }
  };

  /** Payments verified and not yet settled or cancelled (this process; replicas each hold their own). */
  const inUse = new Set<string>();
  return {
    async process(req) {
      await init();
      const a = adapter(req);
      const context: HTTPRequestContext = {
        adapter: a,
        path: a.getPath(),
        method: req.method,
        paymentHeader: a.getHeader('payment-signature') ?? a.getHeader('x-payment'),
      };
      let result: Awaited<ReturnType<typeof http.processHTTPRequest>>;
      try {
        result = await http.processHTTPRequest(context);
      } catch (e) {
        throw new Unavailable(`payment facilitator unavailable: ${shortMessage(e)}`.slice(0, 300), { retryAfterSeconds: 10 });
      }
      if (result.type === 'no-payment-required') throw new PaywatchError('payment route not configured', { code: 'payment_route_missing' });
      if (result.type === 'payment-error') {
        const r = result.response;
        const given = (r.body as { error?: string } | undefined)?.error;
        const error = context.paymentHeader
          ? `payment rejected: ${given ?? 'the payment did not verify'}`
          : `payment required: send Authorization: Bearer <API_KEY> (free key: POST /v1/keys), or pay ${CHECK_PRICE_DOLLARS} dollars per call with x402 (PAYMENT-REQUIRED header)`;
        return { kind: 'respond', status: r.status, headers: r.headers, body: v1Body(r.headers, error, checkUrl) };
      }
      const { paymentPayload, paymentRequirements, declaredExtensions, cancellationDispatcher } = result;
      const auth = (paymentPayload.payload as { authorization?: { from?: string; nonce?: string } })?.authorization;
      const payer = (auth?.from ?? null)?.toLowerCase() ?? null;
      // One payment pays one check: its nonce (else the header) is held from verification until settled or cancelled.
      const id = auth?.nonce
        ? `${payer}:${String(auth.nonce).toLowerCase()}`
        : `header:${createHash('sha256')
            .update(context.paymentHeader ?? '')
            .digest('hex')}`;
      if (inUse.has(id)) {
        const error = 'payment rejected: this payment is already paying for a check in progress (one payment pays one check)';
        return { kind: 'respond', status: 402, headers: {}, body: { error, x402Version: 1, accepts: [] } };
      }
      inUse.add(id);
      const free = () => inUse.delete(id);
      return {
        kind: 'verified',
        payer,
        async settle() {
          try {
            const s = await http.processSettlement(paymentPayload, paymentRequirements, declaredExtensions, { request: context });
            if (s.success) return { ok: true, headers: s.headers, transaction: s.transaction, payer: s.payer?.toLowerCase() ?? payer };
            return {
              ok: false,
              status: s.response.status,
              headers: s.response.headers,
              body: { ...(s.response.body as object), error: `payment settlement failed: ${s.errorReason ?? 'unknown reason'}` },
            };
          } catch (e) {
            return {
              ok: false,
              status: 503,
              headers: { 'retry-after': '10' },
              body: { error: `payment facilitator unavailable during settlement: ${shortMessage(e)}`.slice(0, 300) },
            };
          } finally {
            free();
          }
        },
        async cancel(status) {
          free();
          await cancellationDispatcher.cancel({ reason: 'handler_failed', responseStatus: status }).catch(() => undefined);
        },
      };
    },
  };
}

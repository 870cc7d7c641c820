/**
 * A real local x402 facilitator: `@x402/core/facilitator` with the `@x402/evm` exact scheme for Tempo
 * (eip155:4217, x402 v2) and Base Sepolia (x402 v1), served over HTTP (`GET /supported`, `POST /verify`,
 * `POST /settle`) so the demo's x402 resource servers work offline. `/supported` needs no chain; verify and
 * settle talk to `rpcUrl` (a local anvil node: the demo's paid trust check and the tests settle through it).
 */
import { x402Facilitator } from '@x402/core/facilitator';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import type { Hono } from 'hono';
import { createWalletClient, http, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { tempo } from 'viem/chains';
import { TEMPO_MAINNET } from '../../domain/tempo.js';

/**
 * Adds the facilitator routes to `app`.
 * @param app the Hono app of the directory server
 * @param opts rpcUrl: JSON-RPC for verify/settle; privateKey: the facilitator's signer (an anvil test key)
 */
export function mountFacilitator(app: Hono, opts: { rpcUrl: string; privateKey: `0x${string}` }): void {
  const account = privateKeyToAccount(opts.privateKey);
  const client = createWalletClient({ account, chain: tempo, transport: http(opts.rpcUrl) }).extend(publicActions);
  const signer = toFacilitatorEvmSigner({ ...(client as never as Parameters<typeof toFacilitatorEvmSigner>[0]), address: account.address });
  const facilitator = new x402Facilitator()
    .register(TEMPO_MAINNET, new ExactEvmScheme(signer))
    .registerV1('base-sepolia' as never, new ExactEvmScheme(signer));
  app.get('/supported', (c) => c.json(facilitator.getSupported()));
  app.post('/verify', async (c) => {
    const body = (await c.req.json().catch(() => null)) as { paymentPayload?: unknown; paymentRequirements?: unknown } | null;
    if (!body?.paymentPayload || !body.paymentRequirements)
      return c.json({ error: 'paymentPayload and paymentRequirements are required' }, 400);
    return c.json(await facilitator.verify(body.paymentPayload as never, body.paymentRequirements as never));
  });
  app.post('/settle', async (c) => {
    const body = (await c.req.json().catch(() => null)) as { paymentPayload?: unknown; paymentRequirements?: unknown } | null;
    if (!body?.paymentPayload || !body.paymentRequirements)
      return c.json({ error: 'paymentPayload and paymentRequirements are required' }, 400);
    return c.json(await facilitator.settle(body.paymentPayload as never, body.paymentRequirements as never));
  });
}

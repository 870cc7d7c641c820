/**
 * The asset lookup blames the right party: a TIP-20 address that is no token on a live chain (anvil, Tempo mode) is
 * unknown (the target's offer is at fault), while our RPC down (a closed port: a real refused connection) is
 * Unavailable, which the check answers 503 and never meters, instead of asset_unknown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startAnvil, type AnvilNode } from '../../src/chain/anvil.js';
import { Unavailable } from '../../src/domain/errors.js';
import { assetResolver } from '../../src/trust/assets.js';

const NOT_A_TOKEN = '0x20c0000000000000000000000000000000000abc';

describe('assetResolver', () => {
  let anvil: AnvilNode;
  beforeAll(async () => {
    anvil = await startAnvil();
  }, 60_000);
  afterAll(async () => anvil?.stop());

  it('a TIP-20 address without a token behind it, on a live chain: unknown, not an error', async () => {
    const info = await assetResolver(anvil.rpcUrl)('eip155:4217', NOT_A_TOKEN);
    expect(info).toMatchObject({ known: false, currency: null, source: null });
  });

  it('our RPC down: Unavailable (503), never an unknown asset', async () => {
    const down = assetResolver(`http://127.0.0.1:${await freePort()}`, 500);
    await expect(down('eip155:4217', NOT_A_TOKEN)).rejects.toBeInstanceOf(Unavailable);
    // The static list needs no RPC.
    expect((await down('eip155:4217', '0x20c0000000000000000000000000000000000000')).known).toBe(true);
  });
});

/**
 * Hostile tokens on a real anvil node in Tempo mode: a TIP-20 created through the factory by an ordinary account,
 * with any symbol and currency "USD", minted and moved in one MPP-tagged transferWithMemo — what anyone with a
 * Tempo account can do to inflate dollar figures or spoof a listed symbol.
 */
import { createClient, http, parseEventLogs, publicActions, walletActions, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { tempo } from 'viem/chains';
import { Abis, Actions } from 'viem/tempo';
import { ANVIL_KEYS } from '../../src/chain/anvil.js';
import { mppMemo } from '../../src/demo/activity.js';

const GAS = 3_000_000n;
const ALPHA_USD = '0x20c0000000000000000000000000000000000001';

/** What a hostile token run left on chain. */
export interface HostileToken {
  /** Lower-case contract. */
  address: string;
  /** Hash of the MPP-tagged transferWithMemo that moved `atomic` units. */
  transfer: Hash;
  /** Lower-case sender and recipient of that transfer. */
  from: string;
  to: string;
}

/**
 * Creates a USD-currency TIP-20 named `symbol` from anvil, mints `atomic` units to itself and sends
 * them all to account 4 with an MPP memo, then mines two empty blocks so the finalized head (latest − 2) covers it.
 * @param atomic amount in atomic units (6 decimals: 10n ** 18n is 10^12 tokens)
 */
export async function createHostileToken(rpcUrl: string, symbol: string, atomic: bigint): Promise<HostileToken> {
  const account = privateKeyToAccount(ANVIL_KEYS[3]);
  const to = privateKeyToAccount(ANVIL_KEYS[4]).address.toLowerCase();
  const c = createClient({ account, chain: tempo.extend({ feeToken: ALPHA_USD }), transport: http(rpcUrl), pollingInterval: 20 })
    .extend(publicActions)
    .extend(walletActions);
  const wait = async (hash: Hash) => {
    const r = await c.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (r.status !== 'success') throw new Error(`hostile token step ${hash} reverted`);
    return r;
  };
  const created = await wait(await Actions.token.create(c, { name: symbol, symbol, currency: 'USD', gas: GAS }));
  const [event] = parseEventLogs({ abi: Abis.tip20Factory, logs: created.logs, eventName: 'TokenCreated' });
  const token = event.args.token.toLowerCase() as `0x${string}`;
  await wait(await Actions.token.grantRoles(c, { token, roles: ['issuer'], to: account.address, gas: GAS }));
  await wait(await Actions.token.mint(c, { token, to: account.address, amount: atomic, gas: GAS }));
  const transfer = await Actions.token.transfer(c, {
    token,
    to: to as `0x${string}`,
    amount: atomic,
    memo: mppMemo('fake.example', 'agent-x', 'challenge-x'),
    gas: GAS,
  });
  await wait(transfer);
  for (let i = 0; i < 2; i++) await c.request({ method: 'evm_mine' as never, params: [] as never });
  return { address: token, transfer, from: account.address.toLowerCase(), to };
}

/**
 * The x402 contracts and events the decoder recognises on Tempo, from @x402/evm 2.27.0 (`x402ExactPermit2ProxyAddress`,
 * `x402UptoPermit2ProxyAddress`, the `Settled`/`SettledWithPermit` events of `x402ExactPermit2ProxyABI` and
 * `x402UptoPermit2ProxyABI`; sources in x402-foundation/x402 `contracts/evm/src`), and EIP-3009's
 * `AuthorizationUsed`. Copied here so the decoder does not load the package at every start;
 * test/chain/decode-settlement.test.ts holds them to the installed package's exports.
 */
import { parseAbi } from 'viem';

/** The @x402/evm version the addresses and events below come from. */
export const X402_EVM_VERSION = '2.27.0';

/** x402's Permit2 proxies by variant (lower-case; the same address on every EVM chain, deployed with CREATE2). */
export const X402_PERMIT2_PROXIES = {
  exact: '0x402085c248eea27d92e8b30b2c58ed07f9e20001',
  upto: '0x4020a4f3b7b90cca423b9fabcc0ce57c6c240002',
} as const;
export type X402ProxyVariant = keyof typeof X402_PERMIT2_PROXIES;

/** The events both x402 Permit2 proxies emit after a settlement (no arguments). */
export const x402ProxyEvents = parseAbi(['event Settled()', 'event SettledWithPermit()']);

/** EIP-3009's event, emitted by the token when an authorization is used (https://eips.ethereum.org/EIPS/eip-3009). */
export const eip3009Events = parseAbi(['event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)']);

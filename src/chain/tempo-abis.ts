/**
 * viem's Tempo precompile ABIs and addresses (`Abis`, `Addresses` of `viem/tempo`), loaded from their own modules.
 * The `viem/tempo` entry also loads its actions, chain definitions and accounts (about half a second of module
 * loading at every collector start) and viem exports no narrower entry, so the two data modules are imported by
 * file from the installed viem (pinned exactly in package.json). test/chain/tempo-abis.test.ts checks they are
 * the very objects `viem/tempo` exports.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Abis as ViemAbis, Addresses as ViemAddresses } from 'viem/tempo';

const viemRoot = dirname(createRequire(import.meta.url).resolve('viem/package.json'));
const load = (file: string) => import(pathToFileURL(join(viemRoot, '_esm', 'tempo', file)).href);

/** Tempo's precompile ABIs (tip20, stablecoinDex, tip20Factory, feeManager, feeAmm, nonce, …, `all`). */
export const Abis = (await load('Abis.js')) as typeof ViemAbis;
/** Tempo's precompile addresses (checksummed). */
export const Addresses = (await load('Addresses.js')) as typeof ViemAddresses;

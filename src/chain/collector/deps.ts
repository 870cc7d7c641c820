/**
 * The collector's view of the parts it drives (decoder, token registry, integrity, store). One file so the
 * collector's seams are visible in one place.
 * TEMPORARY SHIMS below until the real modules land; replaced by re-exports.
 */
import type { PublicClient } from 'viem';
import type { BlockObservations } from '../../domain/observation.js';
import type { Store } from '../../store/db.js';
import type { BlockIntegrity, FetchedBlock, TokenMap } from '../types.js';
import type { CollectorStatus } from './state.js';
export { findInconsistencies } from '../integrity/consistency.js';

const missing = (what: string) => new Error(`${what} is not built yet`);

export function tokenAddressesOf(_f: FetchedBlock): string[] {
  throw missing('tokenAddressesOf');
}
export function decodeBlock(_f: FetchedBlock, _tokens: TokenMap, _integrity: BlockIntegrity): BlockObservations {
  throw missing('decodeBlock');
}
export function evaluateBlockIntegrity(_f: FetchedBlock): BlockIntegrity {
  throw missing('evaluateBlockIntegrity');
}
export class TokenRegistry {
  constructor(_client: PublicClient) {}
  async resolve(_addresses: Iterable<string>): Promise<TokenMap> {
    throw missing('TokenRegistry');
  }
}
export async function writeBlocks(_store: Store, _blocks: BlockObservations[], _cp: { height: number; hash: string }): Promise<void> {
  throw missing('writeBlocks');
}
export async function getCheckpoint(_store: Store): Promise<{ height: number; hash: string } | null> {
  throw missing('getCheckpoint');
}
export async function saveCollectorState(_store: Store, _s: CollectorStatus): Promise<void> {
  throw missing('saveCollectorState');
}

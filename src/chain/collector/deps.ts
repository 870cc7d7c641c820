/**
 * The parts the collector drives (decoder, token registry, integrity, store), in one place so its seams are
 * visible at a glance.
 */
export { decodeBlock, tokenAddressesOf } from '../decode/index.js';
export { blockCommitment, evaluateBlockIntegrity, findInconsistencies } from '../integrity/index.js';
export { TokenRegistry } from '../tokens.js';
export {
  getCheckpoint,
  prepareBlock,
  saveCollectorState,
  writePreparedBlocks,
  type CollectorState,
  type PreparedBlock,
} from '../../store/chain/index.js';
export { inlineWriter, openStoreWriter, type StoreWriter } from '../../store/chain/writer.js';

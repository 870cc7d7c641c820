/** Secrets: the master secret, encryption at rest, token generation, hashing and constant-time comparison. */
export { MasterSecret, loadMasterSecret } from './master.js';
export { seal, open } from './aead.js';
export { newToken, newId, sha256Hex, hmacSha256Hex, constantTimeEqual } from './tokens.js';

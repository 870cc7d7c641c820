/**
 * One error hierarchy (src/domain/errors.ts): every error class paywatch throws extends PaywatchError, with its
 * own name, a stable snake_case code and a retryable flag that says whether the same call may succeed later.
 */
import { describe, expect, it } from 'vitest';
import {
  Conflict,
  Forbidden,
  InvalidInput,
  LimitExceeded,
  NotFound,
  PaywatchError,
  Unauthenticated,
  Unavailable,
} from '../../src/domain/errors.js';
import { HttpError } from '../../src/http/errors.js';
import { ConfigError } from '../../src/config.js';
import { RpcCallError, RpcUnavailableError, WrongChainError } from '../../src/chain/rpc.js';
import { InconsistentAnswerError } from '../../src/chain/collector/fetch.js';
import { CollectorFailed } from '../../src/chain/collector/collector.js';
import { CollectorLockedError, CollectorLockLostError } from '../../src/store/chain/collector-lock.js';
import { FetchFailed, FetchRefused, FetchTimeout } from '../../src/net/errors.js';
import { Unauthorized } from '../../src/intake/signature.js';
import { TokenListError } from '../../src/domain/token-list.js';
import { CliError } from '../../src/cli/run.js';
import { MigrationError, StoreOpenError } from '../../src/store/db.js';
import { SealError } from '../../src/secrets/aead.js';
import { MasterSecretError } from '../../src/secrets/master.js';
import { HeaderFieldError } from '../../src/chain/integrity/header.js';
import { AnvilError } from '../../src/chain/anvil.js';
import { SourcesConfigError } from '../../src/domain/sources.js';
import { SourceAnswerError } from '../../src/intel/sources/fetch-json.js';
import { DemoError } from '../../src/demo/errors.js';

describe('the error hierarchy', () => {
  it.each([
    [new InvalidInput('x'), 'InvalidInput', 'invalid_input', false],
    [new Unauthenticated('x'), 'Unauthenticated', 'unauthenticated', false],
    [new Forbidden('x'), 'Forbidden', 'forbidden', false],
    [new NotFound('x'), 'NotFound', 'not_found', false],
    [new Conflict('x'), 'Conflict', 'conflict', false],
    [new LimitExceeded('x', { retryAfterSeconds: 1 }), 'LimitExceeded', 'limit_exceeded', true],
    [new Unavailable('x'), 'Unavailable', 'unavailable', true],
    [new HttpError('url_too_long', 'x'), 'HttpError', 'url_too_long', false],
    [new Unauthorized('x'), 'Unauthorized', 'unauthenticated', false],
    [new ConfigError('x'), 'ConfigError', 'config', false],
    [new RpcUnavailableError('x'), 'RpcUnavailableError', 'rpc_unavailable', true],
    [new RpcCallError('eth_x', -32000, 'boom'), 'RpcCallError', 'rpc_call', true],
    [new RpcCallError('eth_x', -32601, 'no such method'), 'RpcCallError', 'rpc_call', false],
    [new WrongChainError('http://n', 1), 'WrongChainError', 'wrong_chain', false],
    [new InconsistentAnswerError(5, ['parentHash']), 'InconsistentAnswerError', 'inconsistent_answer', true],
    [new CollectorFailed('x'), 'CollectorFailed', 'collector_failed', false],
    [new CollectorLockedError('x'), 'CollectorLockedError', 'collector_locked', false],
    [new CollectorLockLostError('x'), 'CollectorLockLostError', 'collector_lock_lost', false],
    [new FetchTimeout('x'), 'FetchTimeout', 'fetch_timeout', true],
    [new FetchFailed('x', 'connect'), 'FetchFailed', 'fetch_connect', true],
    [new FetchRefused('x', 'address'), 'FetchRefused', 'fetch_address', false],
    [new TokenListError('x'), 'TokenListError', 'token_list', false],
    [new CliError('x', 2), 'CliError', 'cli', false],
    [new StoreOpenError('x'), 'StoreOpenError', 'store_unavailable', true],
    [new MigrationError('x'), 'MigrationError', 'migration', false],
    [new SealError('x'), 'SealError', 'sealed_value', false],
    [new MasterSecretError('x'), 'MasterSecretError', 'master_secret', false],
    [new HeaderFieldError('x'), 'HeaderFieldError', 'header_field', false],
    [new AnvilError('x'), 'AnvilError', 'anvil', false],
    [new SourcesConfigError('x'), 'SourcesConfigError', 'sources_config', false],
    [new SourceAnswerError('x', true), 'SourceAnswerError', 'source_answer', true],
    [new DemoError('x'), 'DemoError', 'demo', false],
  ] as const)('%s', (e, name, code, retryable) => {
    expect(e).toBeInstanceOf(PaywatchError);
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe(name);
    expect(e.code).toBe(code);
    expect(e.retryable).toBe(retryable);
  });

  it('keeps the cause it wraps', () => {
    const cause = new Error('socket hang up');
    expect(new PaywatchError('the node did not answer', { code: 'rpc_unavailable', retryable: true, cause }).cause).toBe(cause);
  });
});

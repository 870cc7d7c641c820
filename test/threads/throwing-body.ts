/**
 * A task-thread body (src/threads/serve.ts) that throws what each task names, for test/threads/error-wire.test.ts:
 * the errors paywatch's own bodies throw (a store outage, a limit, a busy resource, a JSON-RPC error, an area's
 * error the host does not name), a driver's error with its code, a built-in TypeError and a thrown non-Error.
 */
import { RpcCallError } from '../../src/chain/rpc.js';
import { LimitExceeded, Unavailable } from '../../src/domain/errors.js';
import { MalformedHexError } from '../../src/chain/integrity/rlp.js';
import { StoreUnavailable } from '../../src/store/outage.js';
import { serveTasks } from '../../src/threads/serve.js';

/** What a task asks the body to throw. */
export type Throw = 'store' | 'limit' | 'busy' | 'rpc' | 'area' | 'driver' | 'type' | 'string' | 'none';

serveTasks((kind: Throw) => {
  switch (kind) {
    case 'store':
      throw new StoreUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    case 'limit':
      throw new LimitExceeded('rate limited: at most 1 request per minute per client; retry after 7 s', { retryAfterSeconds: 7 });
    case 'busy':
      throw new Unavailable('server busy: 2 heavy reads are already queued; retry after 1 s', { retryAfterSeconds: 1 });
    case 'rpc':
      throw new RpcCallError('eth_getBlockByNumber', -32601, 'method not found');
    case 'area':
      throw new MalformedHexError('not a quantity: 0xzz');
    case 'driver':
      throw Object.assign(new Error('database is locked'), { name: 'SqliteError', code: 'SQLITE_BUSY' });
    case 'type':
      throw new TypeError('x is not a function');
    case 'string':
      throw 'a thrown string';
    default:
      return 'answered';
  }
});

/**
 * The loopback consensus node of the finality tests (test/helpers/consensus-rpc.ts) as a process of its own, so a
 * benchmark's CPU accounting of the collector does not include the node's certificate signing: it serves
 * `consensus_getFinalization` with certificates signed by the test key `--key-label` over the upstream's blocks,
 * and forwards every other method there. Prints `READY <url>` on stdout once listening; stops on SIGTERM.
 * Run: node bin/run-ts.js bench/lib/consensus-node.ts --upstream URL --key-label LABEL --epoch-length N
 */
import { parseArgs } from 'node:util';
import { testKey } from '../../test/helpers/consensus.js';
import { startConsensusRpc } from '../../test/helpers/consensus-rpc.js';

const { values } = parseArgs({
  options: {
    upstream: { type: 'string' },
    'key-label': { type: 'string' },
    'epoch-length': { type: 'string' },
  },
});
if (!values.upstream || !values['key-label'] || !values['epoch-length'])
  throw new Error('usage: consensus-node.ts --upstream URL --key-label LABEL --epoch-length N');
const key = testKey(values['key-label']);
const node = await startConsensusRpc({
  upstream: values.upstream,
  certify: { epochLength: Number(values['epoch-length']), keyFor: () => key },
});
process.stdout.write(`READY ${node.url}\n`);
process.on('SIGTERM', () => {
  node.close().then(() => process.exit(0));
});

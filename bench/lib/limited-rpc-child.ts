/**
 * Body of the proxy process (./limited-rpc-process.ts): starts test/helpers/limited-rpc.ts with the options in
 * argv[2] (JSON), tells the parent its URL, answers `counts` with its counts, and on `close` closes and exits.
 */
import { startLimitedRpc, type LimitedRpcOptions } from '../../test/helpers/limited-rpc.js';

const proxy = await startLimitedRpc(JSON.parse(process.argv[2]) as LimitedRpcOptions);
process.send?.({ url: proxy.url });
process.on('message', async (m: unknown) => {
  if (m === 'counts') process.send?.({ counts: proxy.counts });
  if (m === 'close') {
    await proxy.close();
    process.send?.({ counts: proxy.counts }, () => process.exit(0));
  }
});

/**
 * CPU (user + system, the whole process) of a worker thread that imports modules of a compiled tree and exits: what
 * a thread such as the store writer (src/store/chain/writer-thread.ts) spends loading its code before its first task.
 * Run: node bench/thread-load.mjs DIST MODULE… (paths under DIST), e.g. the writer thread's imports:
 *   node bench/thread-load.mjs dist store/sqlite.js store/target.js store/chain/write-blocks.js threads/serve.js
 */
import { Worker } from 'node:worker_threads';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dist, ...mods] = process.argv.slice(2);
const urls = mods.map((m) => pathToFileURL(resolve(dist, m)).href);
const c0 = process.cpuUsage();
await new Promise((done, fail) => {
  const body = `Promise.all(${JSON.stringify(urls)}.map((u) => import(u))).then(() => require('node:worker_threads').parentPort.postMessage(1));`;
  const w = new Worker(body, { eval: true });
  w.on('message', () => w.terminate().then(done));
  w.on('error', fail);
});
const c = process.cpuUsage(c0);
process.stdout.write(`${((c.user + c.system) / 1000).toFixed(0)} ms CPU loading ${mods.join(' ')}\n`);

// Worker-thread entry for TypeScript worker bodies: loads tsx's loader in this thread (hooks registered in the
// parent do not reach a worker on Node 20), then the body named by `workerData.entry` (a file: URL string).
// Plain JS so it starts without any loader. Start a worker with startWorker (./start.ts).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';
register();
await import(workerData.entry);

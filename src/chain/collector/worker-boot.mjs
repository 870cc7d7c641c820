// Worker-thread entry: loads tsx's loader in this thread (hooks registered in the parent do not reach a
// worker on Node 20), then the TypeScript worker body. Plain JS so it starts without any loader.
import { register } from 'tsx/esm/api';
register();
await import('./worker.ts');

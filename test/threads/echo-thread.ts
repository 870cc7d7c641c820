/** Body of the test thread pool's threads (test/threads/pool.test.ts): doubles numbers, dies or fails on request. */
import { workerData } from 'node:worker_threads';
import { serveTasks } from '../../src/threads/serve.js';

if ((workerData as { broken?: boolean }).broken) throw new Error('this body never loads');

type Task = { op: 'double'; x: number } | { op: 'exit' } | { op: 'fail' } | { op: 'wait'; ms: number };

serveTasks(async (task: Task) => {
  if (task.op === 'exit') process.exit(3);
  if (task.op === 'fail') throw new RangeError('asked to fail');
  if (task.op === 'wait') await new Promise((r) => setTimeout(r, task.ms));
  return task.op === 'double' ? task.x * 2 : 0;
});

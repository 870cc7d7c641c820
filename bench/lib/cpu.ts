/**
 * CPU accounting for benchmarks on Linux (/proc): how much CPU a separate process (the node under test) used
 * during a measured span, beside this process's own, so a result can show where a machine's cores went.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/PID/stat times (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100;

/**
 * CPU seconds (user + system, all threads) process `pid` has used so far, from /proc/PID/stat fields 14–15.
 * @returns null when /proc is not there (not Linux) or the process is gone
 */
export function processCpuSeconds(pid: number): number | null {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/** User + system CPU seconds from a /proc stat file (a process's, or one thread's under task/); null when unreadable. */
function statCpuSeconds(path: string): number | null {
  try {
    // The command name (field 2) may hold spaces; fields are counted after its closing parenthesis.
    const fields = readFileSync(path, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  } catch {
    return null;
  }
}

/**
 * CPU milliseconds process `pid` has run so far, all its live threads summed, from the scheduler's nanosecond
 * counters (/proc/PID/task/TID/schedstat, first field): fine enough to time one request, where /proc/PID/stat
 * counts 10 ms ticks. A thread that ended between two readings drops out of the second; null when /proc is not there.
 */
export function processCpuMs(pid: number): number | null {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  let ns = 0;
  for (const tid of tids) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      /* ended meanwhile */
    }
  }
  return ns / 1e6;
}

/**
 * The first descendant of `pid` (breadth-first) whose command name is `comm`, e.g. the anvil behind its
 * watchdog shell; null when there is none or /proc is not there.
 */
export function findDescendant(pid: number, comm: string): number | null {
  const queue = [pid];
  while (queue.length) {
    const p = queue.shift()!;
    let children: number[] = [];
    try {
      for (const task of readdirSync(`/proc/${p}/task`)) {
        children.push(...readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
      }
    } catch {
      children = [];
    }
    for (const c of children) {
      try {
        if (readFileSync(`/proc/${c}/comm`, 'utf8').trim() === comm) return c;
      } catch {
        /* exited meanwhile */
      }
      queue.push(c);
    }
  }
  return null;
}

/**
 * CPU seconds (user + system) so far of each live thread of this process, by thread id (/proc/self/task/TID/stat);
 * the main thread's id is the process id. A thread that exited is gone from the map (its CPU stays in
 * ownCpuSeconds). Empty when /proc is not there.
 */
export function threadCpuSeconds(): Map<number, number> {
  const out = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tids) {
    // Per thread: /proc/PID/stat of the main thread's id would be the whole process.
    const s = statCpuSeconds(`/proc/self/task/${tid}/stat`);
    if (s !== null) out.set(Number(tid), s);
  }
  return out;
}

/**
 * Where this process's CPU went between two threadCpuSeconds readings taken with ownCpuSeconds: the main thread,
 * the other threads alive at both readings (V8's compiler and GC helpers, libuv's pool), and the rest, which is
 * the threads that ended in between (a worker thread closed before the second reading).
 */
export function cpuSplit(
  before: Map<number, number>,
  after: Map<number, number>,
  totalSeconds: number,
): { main_s: number; helpers_s: number; exited_s: number } {
  let main = 0;
  let helpers = 0;
  for (const [tid, s] of after) {
    const d = s - (before.get(tid) ?? 0);
    if (tid === process.pid) main += d;
    else helpers += d;
  }
  const r = (x: number) => Number(x.toFixed(2));
  return { main_s: r(main), helpers_s: r(helpers), exited_s: r(Math.max(0, totalSeconds - main - helpers)) };
}

/** This process's CPU seconds so far (user + system, all threads). */
export const ownCpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/**
 * CPU seconds (user + system) used so far by every running process whose command name is `comm` (e.g. the
 * PostgreSQL server's processes, "postgres"); a process that exited meanwhile no longer counts, so take the
 * span's end reading while the processes of interest still run. Null when /proc is not there.
 */
export function commandCpuSeconds(comm: string): number | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  let total = 0;
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === comm) total += processCpuSeconds(Number(pid)) ?? 0;
    } catch {
      /* exited meanwhile */
    }
  }
  return total;
}

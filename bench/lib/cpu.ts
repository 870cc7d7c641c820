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
  try {
    // The command name (field 2) may hold spaces; fields are counted after its closing parenthesis.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  } catch {
    return null;
  }
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

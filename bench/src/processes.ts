/**
 * CPU and memory of a process tree (the controller and the processes it started), read from
 * /proc: resident set size summed over the tree, CPU time summed over the tree.
 */
import { readFileSync, readdirSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** The direct children of `pid` (none when it is gone). */
export function children(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((t) => readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

/** The pid and all its descendants still alive. */
export function processTree(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...children(all[i]!));
  return all;
}

export interface Usage {
  /** CPU seconds used so far (user + system). */
  cpuSeconds: number;
  rssBytes: number;
}

function one(pid: number): Usage {
  try {
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpu = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return { cpuSeconds: cpu, rssBytes: rss ? Number(rss[1]) * 1024 : 0 };
  } catch {
    return { cpuSeconds: 0, rssBytes: 0 };
  }
}

export function treeUsage(pid: number): Usage {
  return processTree(pid).map(one).reduce((a, b) => ({ cpuSeconds: a.cpuSeconds + b.cpuSeconds, rssBytes: a.rssBytes + b.rssBytes }), { cpuSeconds: 0, rssBytes: 0 });
}

/** Samples a tree while `work` runs: CPU share (100 = one core busy) and peak RSS. */
export async function measure<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; cpuPercent: number; peakRssMb: number }> {
  const start = treeUsage(pid);
  const t0 = process.hrtime.bigint();
  let peak = start.rssBytes;
  const timer = setInterval(() => { peak = Math.max(peak, treeUsage(pid).rssBytes); }, 250);
  try {
    const result = await work();
    const end = treeUsage(pid);
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    peak = Math.max(peak, end.rssBytes);
    return { result, cpuPercent: Math.round(((end.cpuSeconds - start.cpuSeconds) / seconds) * 100), peakRssMb: Math.round(peak / 1048576) };
  } finally {
    clearInterval(timer);
  }
}

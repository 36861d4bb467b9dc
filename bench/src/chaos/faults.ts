/**
 * The faults a chaos run injects: NATS killed and started again, Postgres unreachable (its relay
 * cut) and restored, and a SIGKILL of one supervised process, which the launcher restarts.
 */
import type { ChaosCluster } from './cluster.js';

export const SERVICE_FAULTS = ['auth', 'pki', 'identity', 'policy', 'session', 'gateway'] as const;
export const FAULTS = ['nats', 'postgres', ...SERVICE_FAULTS] as const;
export type FaultName = (typeof FAULTS)[number];

/** When a fault began and ended; for a killed process, when its successor was running. */
export interface FaultWindow {
  startedAt: number;
  endedAt: number;
  /** From the kill until the supervisor had a new process running. */
  restartMs?: number;
  /** From the kill until the new process served (its gRPC health SERVING; the gateway's HTTPS). */
  servingMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Parses `--only`: fault names separated by commas; all when absent. */
export function parseFaults(only: string | undefined): FaultName[] {
  if (!only) return [...FAULTS];
  const names = only.split(',').map((n) => n.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(FAULTS as readonly string[]).includes(n));
  if (unknown.length) throw new Error(`--only: no fault ${unknown.join(', ')} (there are ${FAULTS.join(', ')})`);
  return [...new Set(names)] as FaultName[];
}

/**
 * Injects `fault`; `during` runs once the fault is in place (while a dependency is away, or
 * right after a kill). An outage lasts `seconds`; a kill ends at once, and the window records
 * when the process was running again.
 */
export async function inject(fault: FaultName, cluster: ChaosCluster, seconds: number, during: () => Promise<void>): Promise<FaultWindow> {
  if (fault === 'nats' || fault === 'postgres') {
    await (fault === 'nats' ? cluster.nats.stop() : cluster.postgres.cut());
    const startedAt = Date.now();
    try {
      await Promise.all([during(), sleep(seconds * 1000)]);
    } finally {
      await (fault === 'nats' ? cluster.nats.start() : cluster.postgres.restore());
    }
    return { startedAt, endedAt: Date.now() };
  }
  const pid = cluster.pidOf(fault);
  if (pid === undefined) throw new Error(`no running ${fault} process to kill`);
  process.kill(pid, 'SIGKILL');
  const killedAt = Date.now();
  const [times] = await Promise.all([restarted(cluster, fault, pid, killedAt), during()]);
  return { startedAt: killedAt, endedAt: killedAt, ...times };
}

/** Waits (up to 30 s) until a process other than `pid` runs `fault`, and until it serves; answers how long after the kill. */
async function restarted(cluster: ChaosCluster, fault: FaultName, pid: number, killedAt: number): Promise<{ restartMs?: number; servingMs?: number }> {
  const out: { restartMs?: number; servingMs?: number } = {};
  while (Date.now() - killedAt < 30_000) {
    if (out.restartMs === undefined) {
      const now = cluster.pidOf(fault);
      if (now !== undefined && now !== pid) out.restartMs = Date.now() - killedAt;
    }
    if (out.restartMs !== undefined && (await cluster.serves(fault))) {
      out.servingMs = Date.now() - killedAt;
      return out;
    }
    await sleep(25);
  }
  return out;
}

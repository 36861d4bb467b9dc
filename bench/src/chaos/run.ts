/**
 * A chaos run: the cluster under a steady mixed load, each fault injected in turn, and for each
 * the answers seen, the time until every kind of request succeeded again, and what was lost.
 */
import { createHttpClient, type HttpClient } from '@edge/testing';
import { startChaosCluster, type ChaosCluster } from './cluster.js';
import { inject, type FaultName, type FaultWindow } from './faults.js';
import { watchDelivery, type DeliveryWatch } from './delivery.js';
import { createLedger, type Ledger } from './ledger.js';
import { RECOVERY_KINDS, startLoad, type Kind, type Load, type Sample } from './load.js';
import { createNetwork, enroll, type ChaosNetwork } from './network.js';
import { verifyPhase, type Verification } from './verify.js';

export interface ChaosOptions {
  /** The Postgres the cluster uses (through a relay the run cuts). */
  databaseUrl: string;
  /** Schema and subject prefix of the run; its schemas are dropped at the end. */
  prefix: string;
  faults: FaultName[];
  /** How long NATS and Postgres stay away. */
  seconds: number;
  /** Concurrent requests of each kind of the load (default 1). */
  workersPerKind?: number;
  /**
   * The longest recovery accepted (default 5 s): from the end of an outage, or from when a killed
   * process serves again.
   */
  boundMs?: number;
  /** The longest event delivery accepted, from the end of the fault (default `boundMs`). */
  eventBoundMs?: number;
  /** Progress lines. */
  say?: (line: string) => void;
  /** Environment the controller's processes get on top of the run's own. */
  env?: Record<string, string>;
}

/** What one fault did. */
export interface FaultResult extends Verification {
  fault: FaultName;
  window: FaultWindow;
  requests: number;
  /** Answers by status (`conn`: connection dropped or refused, `timeout`: none in 15 s). */
  outcomes: Record<string, number>;
  byKind: Partial<Record<Kind, Record<string, number>>>;
  /**
   * Answers by kind to requests sent while the fault lasted: a dependency's outage, or from a
   * kill until every kind succeeded again.
   */
  during: Partial<Record<Kind, Record<string, number>>>;
  /** From the end of the fault (the kill) until a request of each kind sent after it succeeded. */
  recoveryMs: Partial<Record<Kind, number>>;
  /** What failed the fault (none when it passed). */
  problems: string[];
}

export interface ChaosResult {
  seconds: number;
  faults: FaultResult[];
  ok: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LOAD_USERS = 2;
/** Load before each fault, so that it meets requests in flight. */
const STEADY_MS = 1_000;
/** How long to wait for recovery before calling a fault unrecovered. */
const RECOVERY_LIMIT_MS = 30_000;

/** Starts the cluster, runs every fault in `opts.faults` and stops it again. */
export async function runChaos(opts: ChaosOptions): Promise<ChaosResult> {
  const say = opts.say ?? (() => undefined);
  say(`starting the cluster with NATS on a spare port and Postgres through a relay (prefix ${opts.prefix})`);
  const cluster = await startChaosCluster(opts.databaseUrl, opts.prefix, opts.env);
  const http = createHttpClient({ baseUrl: cluster.url });
  let load: Load | undefined;
  let watch: DeliveryWatch | undefined;
  try {
    const net = await createNetwork(http);
    const users = [];
    for (let i = 0; i < LOAD_USERS; i++) users.push((await enroll(http, net, `chaos-user-${i}`)).name);
    const ledger = createLedger();
    watch = watchDelivery(opts.databaseUrl, opts.prefix, ledger);
    load = startLoad({ http, net, ledger, users, workersPerKind: opts.workersPerKind ?? 1 });
    const results: FaultResult[] = [];
    for (const fault of opts.faults) {
      say(`fault ${fault}`);
      results.push(await runFault(fault, { ...opts, cluster, http, net, ledger, load, watch }));
      const r = results.at(-1)!;
      say(`  ${r.requests} requests ${JSON.stringify(r.outcomes)}; ${r.problems.length ? `FAILED: ${r.problems.join('; ')}` : 'passed'}`);
    }
    return { seconds: opts.seconds, faults: results, ok: results.every((r) => r.problems.length === 0) };
  } finally {
    await load?.stop();
    await watch?.stop();
    http.close();
    await cluster.stop();
  }
}

interface FaultContext extends ChaosOptions {
  cluster: ChaosCluster;
  http: HttpClient;
  net: ChaosNetwork;
  ledger: Ledger;
  load: Load;
  watch: DeliveryWatch;
}

async function runFault(fault: FaultName, ctx: FaultContext): Promise<FaultResult> {
  const bound = ctx.boundMs ?? 5_000;
  // Two identities with a login and a session each: one logged out, one deleted while the fault lasts.
  const [out, del] = [await enroll(ctx.http, ctx.net, `chaos-${fault}-out`), await enroll(ctx.http, ctx.net, `chaos-${fault}-del`)];
  ctx.load.setPhase(fault);
  await sleep(STEADY_MS);
  const window = await inject(fault, ctx.cluster, ctx.seconds, async () => {
    await sleep(300);
    await Promise.all([ctx.load.logout(out.token, [out.sessionId]), ctx.load.deleteIdentity(del.id, [del.sessionId])]);
  });
  const recoveryMs = await recovery(ctx.load.samples, fault, window.endedAt);
  await ctx.load.pause();
  try {
    const eventBound = ctx.eventBoundMs ?? bound;
    const clearAt = window.startedAt + (window.servingMs ?? window.endedAt - window.startedAt);
    const verification = await verifyPhase(ctx.http, ctx.ledger, ctx.watch, ctx.net.admin, fault, clearAt, Math.max(eventBound, 10_000));
    const samples = ctx.load.samples.filter((s) => s.phase === fault);
    const until = window.endedAt + (window.restartMs === undefined ? 0 : Math.max(0, ...Object.values(recoveryMs)));
    const during = tally(samples.filter((s) => s.startedAt >= window.startedAt && s.startedAt <= until)).byKind;
    const result = { fault, window, ...tally(samples), during, recoveryMs, ...verification, problems: [] as string[] };
    result.problems = problems(result, bound, eventBound);
    return result;
  } finally {
    ctx.load.resume();
  }
}

/** Waits until every recovery kind succeeded after `since` (at most RECOVERY_LIMIT_MS); answers the times. */
async function recovery(samples: Sample[], phase: string, since: number): Promise<Partial<Record<Kind, number>>> {
  const times = (): Partial<Record<Kind, number>> => {
    const out: Partial<Record<Kind, number>> = {};
    for (const s of samples) {
      if (s.phase !== phase || s.startedAt < since || typeof s.outcome !== 'number' || s.outcome >= 300) continue;
      out[s.kind] = Math.min(out[s.kind] ?? Infinity, s.endedAt - since);
    }
    return out;
  };
  while (Date.now() - since < RECOVERY_LIMIT_MS && RECOVERY_KINDS.some((k) => times()[k] === undefined)) await sleep(100);
  return times();
}

function tally(samples: Sample[]) {
  const outcomes: Record<string, number> = {};
  const byKind: Partial<Record<Kind, Record<string, number>>> = {};
  for (const s of samples) {
    const key = String(s.outcome);
    outcomes[key] = (outcomes[key] ?? 0) + 1;
    const k = (byKind[s.kind] ??= {});
    k[key] = (k[key] ?? 0) + 1;
  }
  return { requests: samples.length, outcomes, byKind };
}

/** Why a fault failed: a 500 (or any answer but success and 503), a loss, or a slow recovery. */
function problems(r: Omit<FaultResult, 'problems'>, boundMs: number, eventBoundMs: number): string[] {
  const out: string[] = [];
  for (const [key, n] of Object.entries(r.outcomes)) {
    const status = Number(key);
    const expected = (status >= 200 && status < 300) || status === 503 || (r.fault === 'gateway' && key === 'conn');
    if (!expected) out.push(`${n} answered ${key}`);
  }
  if (r.writesLost.length) out.push(`${r.writesLost.length} acknowledged writes lost (${r.writesLost.slice(0, 3).join(', ')})`);
  if (r.eventsLost.length) out.push(`${r.eventsLost.length} events lost (${r.eventsLost.slice(0, 3).join(', ')})`);
  // After a kill the clock starts once the new process serves: how long a Node process takes to
  // start is the machine's, how soon the gateway uses it again is the controller's.
  const from = r.window.servingMs ?? 0;
  for (const k of RECOVERY_KINDS) {
    const ms = r.recoveryMs[k];
    if (ms === undefined) out.push(`${k} did not succeed again within ${RECOVERY_LIMIT_MS / 1000} s`);
    else if (ms - from > boundMs) out.push(`${k} succeeded again only ${ms - from} ms after ${from ? 'the process served' : 'the fault ended'}`);
  }
  if (r.fault !== 'nats' && r.fault !== 'postgres' && r.window.servingMs === undefined) out.push(`${r.fault} not serving again within 30 s`);
  if (r.eventsDeliveredMs !== undefined && r.eventsDeliveredMs > eventBoundMs) out.push(`events delivered only after ${r.eventsDeliveredMs} ms`);
  return out;
}

/**
 * The steady mixed load of a chaos run: workers sending logins, identity creates, session
 * creates (now and then a logout of an API session that holds sessions instead) and service lists. Every
 * answer is recorded with its kind and time; every acknowledged write goes into the ledger.
 */
import type { HttpClient } from '@edge/testing';
import type { ApiSession, Ledger } from './ledger.js';
import { PASSWORD, ROLE, type ChaosNetwork } from './network.js';

const C = '/edge/client/v1';
const M = '/edge/management/v1';

/** What the load sends; identity deletions are sent by the run itself, once per fault. */
export const KINDS = ['login', 'create-identity', 'create-session', 'list-services', 'logout', 'delete-identity'] as const;
export type Kind = (typeof KINDS)[number];
/** The kinds sent steadily enough to time a recovery by. */
export const RECOVERY_KINDS: readonly Kind[] = ['login', 'create-identity', 'create-session', 'list-services'];
/** Of the session worker's turns, the share spent logging out an API session that holds sessions. */
const LOGOUT_SHARE = 0.25;
/** A worker sends at most one request per this long: a steady load that leaves the machine room to restart a process. */
const PACE_MS = 100;
/** API sessions kept alive at least (the logout kind leaves them alone). */
const MIN_POOL = 4;
/** A request unanswered this long counts as `timeout`. */
const REQUEST_TIMEOUT_MS = 15_000;

/** One answer: an HTTP status, no answer at all, or a fault of the load itself (`error`). */
export type Outcome = number | 'conn' | 'timeout' | 'error';

export interface Sample {
  kind: Kind;
  outcome: Outcome;
  phase: string;
  startedAt: number;
  endedAt: number;
}

export interface LoadOptions {
  http: HttpClient;
  net: ChaosNetwork;
  ledger: Ledger;
  /** Names of the load's password identities. */
  users: string[];
  /** Concurrent requests of each recovery kind. */
  workersPerKind: number;
}

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;

async function outcomeOf(call: Promise<{ status: number; body: any }>): Promise<{ outcome: Outcome; body?: any }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ outcome: Outcome }>((resolve) => { timer = setTimeout(() => resolve({ outcome: 'timeout' }), REQUEST_TIMEOUT_MS); });
  try {
    return await Promise.race([call.then((r) => ({ outcome: r.status, body: r.body }), () => ({ outcome: 'conn' as const })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Starts the workers; they run until `stop`. */
export function startLoad(opts: LoadOptions) {
  const { http, net, ledger } = opts;
  const samples: Sample[] = [];
  const pool: ApiSession[] = [];
  let phase = 'warm-up';
  let stopping = false;
  let paused: Promise<void> | undefined;
  let resume: () => void = () => undefined;
  let busy = 0;
  let idle: () => void = () => undefined;
  let created = 0;

  /** Sends one request of `kind`; answers its outcome and records what it acknowledged. */
  const send = async (kind: Kind): Promise<Outcome> => {
    const p = phase;
    switch (kind) {
      case 'login': {
        const username = pick(opts.users);
        const r = await outcomeOf(http.post(`${C}/authenticate?method=password`, { body: { username, password: PASSWORD } }));
        if (r.outcome === 200) {
          const token = r.body.data.token as string;
          pool.push({ token, identityId: r.body.data.identity.id, sessionIds: [], phase: p });
          ledger.apiSessions.push({ value: token, phase: p });
        }
        return r.outcome;
      }
      case 'create-identity': {
        const body = { name: `chaos-${process.pid}-${created++}`, type: 'Device', isAdmin: false, roleAttributes: [ROLE], enrollment: { ott: true } };
        const r = await outcomeOf(http.post(`${M}/identities`, { body, session: net.admin }));
        if (r.outcome === 201) ledger.identities.push({ value: r.body.data.id, phase: p });
        return r.outcome;
      }
      case 'create-session': {
        const s = pick(pool);
        const r = await outcomeOf(http.post(`${C}/sessions`, { body: { serviceId: net.serviceId }, session: s.token }));
        if (r.outcome === 201) {
          s.sessionIds.push(r.body.data.id);
          ledger.sessions.push({ value: { id: r.body.data.id, token: s.token }, phase: p });
        }
        return r.outcome;
      }
      case 'list-services':
        return (await outcomeOf(http.get(`${M}/services?limit=5`, { session: net.admin }))).outcome;
      case 'logout': {
        const [s] = pool.splice(pool.findIndex((x) => x.sessionIds.length > 0), 1);
        return logout(s!.token, s!.sessionIds, p);
      }
      case 'delete-identity':
        throw new Error('identity deletions are sent by deleteIdentity');
    }
  };

  const logout = async (token: string, sessionIds: string[], p: string): Promise<Outcome> => {
    const r = await outcomeOf(http.delete(`${C}/current-api-session`, { session: token }));
    if (r.outcome === 200) ledger.loggedOut.set(token, { value: sessionIds, phase: p, at: Date.now() });
    else ledger.uncertain.add(token);
    return r.outcome;
  };

  /** Runs `fn` as a request of `kind`, recorded like the workers' own. */
  const recorded = async (kind: Kind, fn: (p: string) => Promise<Outcome>): Promise<Outcome> => {
    const [at, startedAt] = [phase, Date.now()];
    // A fault of the load itself is recorded as an answer nobody expects, not a crash of the run.
    const outcome = await fn(at).catch((): Outcome => 'error');
    samples.push({ kind, outcome, phase: at, startedAt, endedAt: Date.now() });
    return outcome;
  };

  /** The kind a worker of `kind` sends next, given what the pool allows. */
  const nextKind = (kind: Kind): Kind => {
    if (kind !== 'create-session') return kind;
    if (pool.length === 0) return 'login';
    return pool.length > MIN_POOL && Math.random() < LOGOUT_SHARE && pool.some((s) => s.sessionIds.length > 0) ? 'logout' : kind;
  };

  // Workers of one kind each, so that a kind waiting on a service that is away does not hold
  // up the others, and each kind's recovery is its own.
  const worker = async (of: Kind) => {
    while (!stopping) {
      if (paused) {
        await paused;
        continue;
      }
      busy++;
      const kind = nextKind(of);
      const started = Date.now();
      await recorded(kind, () => send(kind));
      if (--busy === 0) idle();
      await new Promise((r) => setTimeout(r, Math.max(0, PACE_MS - (Date.now() - started))));
    }
  };
  const workers = Array.from({ length: Math.max(1, opts.workersPerKind) }).flatMap(() => RECOVERY_KINDS.map(worker));

  return {
    samples,
    /** Logs out an API session outside the pool (recorded as a `logout`). */
    logout: (token: string, sessionIds: string[]) => recorded('logout', (p) => logout(token, sessionIds, p)),
    /** Deletes an identity whose sessions are `sessionIds` (recorded as a `delete-identity`). */
    deleteIdentity: (id: string, sessionIds: string[]) => recorded('delete-identity', async (p) => {
      const r = await outcomeOf(http.delete(`${M}/identities/${id}`, { session: net.admin }));
      if (r.outcome === 200) ledger.deleted.push({ value: { id, sessionIds }, phase: p, at: Date.now() });
      return r.outcome;
    }),
    /** Attributes what follows to `name`. */
    setPhase(name: string) {
      phase = name;
    },
    /** Holds the workers and resolves once no request is in flight. */
    async pause() {
      paused = new Promise((r) => { resume = r; });
      if (busy > 0) await new Promise<void>((r) => { idle = r; });
    },
    resume() {
      paused = undefined;
      resume();
    },
    async stop() {
      stopping = true;
      this.resume();
      await Promise.all(workers);
    },
  };
}

export type Load = ReturnType<typeof startLoad>;

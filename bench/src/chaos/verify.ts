/**
 * After a fault: waits for what the events of its acknowledged logouts and deletions must remove
 * (each must go, within a bound; see delivery.ts) and re-reads every write acknowledged during it
 * (each must still be there). A read answered neither way (a 503 while the controller settles)
 * is asked again.
 */
import type { HttpClient } from '@edge/testing';
import type { DeliveryWatch, Effect } from './delivery.js';
import type { Ledger } from './ledger.js';

const C = '/edge/client/v1';
const M = '/edge/management/v1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One fact to check: true when it holds, false when it does not, undefined when the answer says neither. */
interface Check {
  what: string;
  holds: () => Promise<boolean | undefined>;
}

export interface Verification {
  writesChecked: number;
  /** Acknowledged writes not found (must be none). */
  writesLost: string[];
  /** Logouts and deletions whose effects were waited for. */
  eventsChecked: number;
  /** Effects of acknowledged logouts and deletions still missing at the bound (must be none). */
  eventsLost: string[];
  /**
   * The longest wait for an effect: from the later of its acknowledgement and the fault's
   * clearing until it was seen.
   */
  eventsDeliveredMs?: number;
}

/** Asks `path` (with `session`); true on `yes`, false on `no`, undefined otherwise. */
function status(http: HttpClient, path: string, session: string, yes: number, no: number) {
  return async () => {
    const r = await http.get(path, { session }).catch(() => undefined);
    return r?.status === yes ? true : r?.status === no ? false : undefined;
  };
}

function writeChecks(http: HttpClient, ledger: Ledger, admin: string, phase: string): Check[] {
  const mine = <T>(list: { value: T; phase: string }[]) => list.filter((e) => e.phase === phase).map((e) => e.value);
  return [
    ...mine(ledger.identities).map((id) => ({ what: `identity ${id}`, holds: status(http, `${M}/identities/${id}`, admin, 200, 404) })),
    ...mine(ledger.sessions).filter((s) => ledger.live(s.token)).map((s) => ({ what: `session ${s.id}`, holds: status(http, `${M}/sessions/${s.id}`, admin, 200, 404) })),
    ...mine(ledger.apiSessions).filter((t) => ledger.live(t)).map((t) => ({ what: `API session ${t.slice(0, 8)}…`, holds: status(http, `${C}/current-api-session`, t, 200, 401) })),
    ...mine(ledger.deleted).map((d) => ({ what: `deletion of identity ${d.id}`, holds: status(http, `${M}/identities/${d.id}`, admin, 404, 200) })),
    // A logged-out token still accepted is asked again (the gateway's cache hears of the logout
    // by an event), and lost only if still accepted at the bound.
    ...[...ledger.loggedOut].filter(([, e]) => e.phase === phase).map(([t]) => ({ what: `logout of API session ${t.slice(0, 8)}…`, holds: status(http, `${C}/current-api-session`, t, 401, -1) })),
  ];
}

/** Each check's answer, asked a few at a time. */
async function ask(checks: Check[]): Promise<Array<[Check, boolean | undefined]>> {
  const out: Array<[Check, boolean | undefined]> = [];
  for (let i = 0; i < checks.length; i += 8) {
    const batch = checks.slice(i, i + 8);
    out.push(...(await Promise.all(batch.map(async (c) => [c, await c.holds()] as [Check, boolean | undefined]))));
  }
  return out;
}

/**
 * Verifies the phase `phase`, clear of its fault from `clearAt` (the dependency back, the killed
 * process serving again): each effect of an event must be seen within `boundMs` of the later of
 * `clearAt` and its acknowledgement; then every acknowledged write is re-read (a read that tells
 * nothing is asked again for up to `boundMs`).
 */
export async function verifyPhase(http: HttpClient, ledger: Ledger, watch: DeliveryWatch, admin: string, phase: string, clearAt: number, boundMs: number): Promise<Verification> {
  const from = (e: Effect) => Math.max(e.ackedAt, clearAt);
  let effects = watch.effects(phase);
  const deadline = Math.max(clearAt, ...effects.map(from)) + boundMs;
  while (effects.some((e) => e.seenAt === undefined) && Date.now() < deadline) {
    await sleep(200);
    effects = watch.effects(phase);
  }
  const seen = effects.filter((e) => e.seenAt !== undefined);
  const writes = writeChecks(http, ledger, admin, phase);
  let unsure = writes;
  const lost: Check[] = [];
  const until = Date.now() + boundMs;
  while (unsure.length > 0 && Date.now() < until) {
    const answers = await ask(unsure);
    lost.push(...answers.filter(([, h]) => h === false).map(([c]) => c));
    unsure = answers.filter(([, h]) => h === undefined).map(([c]) => c);
    if (unsure.length) await sleep(300);
  }
  return {
    writesChecked: writes.length,
    writesLost: [...lost, ...unsure].map((c) => c.what),
    eventsChecked: effects.length,
    eventsLost: effects.filter((e) => e.seenAt === undefined).map((e) => e.what),
    eventsDeliveredMs: seen.length ? Math.max(0, ...seen.map((e) => e.seenAt! - from(e))) : undefined,
  };
}

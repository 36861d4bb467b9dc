/**
 * After a fault: re-reads every write acknowledged during it (each must still be there) and
 * waits for what the events of its acknowledged logouts and deletions must remove (each must go,
 * within a bound). A read answered neither way (a 503 while the controller settles) is asked again.
 */
import type { HttpClient } from '@edge/testing';
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
  eventsChecked: number;
  /** Effects of acknowledged logouts and deletions still missing at the bound (must be none). */
  eventsLost: string[];
  /**
   * From the end of the fault, or the acknowledgement of the last logout or deletion if later,
   * until every effect was seen.
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
  ];
}

function eventChecks(http: HttpClient, ledger: Ledger, admin: string, phase: string): Check[] {
  const gone = (id: string, why: string) => ({ what: `session ${id} of ${why}`, holds: status(http, `${M}/sessions/${id}`, admin, 404, 200) });
  const checks: Check[] = [];
  for (const [token, { value: sessionIds, phase: p }] of ledger.loggedOut) {
    if (p !== phase) continue;
    checks.push({ what: `logged-out API session ${token.slice(0, 8)}…`, holds: status(http, `${C}/current-api-session`, token, 401, 200) });
    checks.push(...sessionIds.map((id) => gone(id, 'a logged-out API session')));
  }
  for (const { value: d } of ledger.deleted.filter((e) => e.phase === phase)) {
    checks.push(...d.sessionIds.map((id) => gone(id, `deleted identity ${d.id}`)));
    checks.push({
      what: `authenticators of deleted identity ${d.id}`,
      holds: async () => {
        const filter = encodeURIComponent(`identityId = "${d.id}"`);
        const r = await http.get(`${M}/authenticators?filter=${filter}`, { session: admin }).catch(() => undefined);
        return r?.status === 200 ? r.body.meta.pagination.totalCount === 0 : undefined;
      },
    });
  }
  return checks;
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
 * Verifies the phase `phase` whose fault ended at `endedAt`: writes are re-read (a read that
 * tells nothing is asked again for up to `boundMs`), effects of events are waited for until
 * `boundMs` after the end or the last acknowledgement that asks for them.
 */
export async function verifyPhase(http: HttpClient, ledger: Ledger, admin: string, phase: string, endedAt: number, boundMs: number): Promise<Verification> {
  const events = eventChecks(http, ledger, admin, phase);
  const acked = [...ledger.loggedOut.values(), ...ledger.deleted].filter((e) => e.phase === phase).map((e) => e.at);
  const from = Math.max(endedAt, ...acked);
  let waiting = events;
  let eventsDeliveredMs: number | undefined;
  for (;;) {
    waiting = (await ask(waiting)).filter(([, h]) => h !== true).map(([c]) => c);
    if (waiting.length === 0) {
      eventsDeliveredMs = Date.now() - from;
      break;
    }
    if (Date.now() - from > boundMs) break;
    await sleep(200);
  }
  const writes = writeChecks(http, ledger, admin, phase);
  // A write is lost when a read says it is not there; a read that cannot tell is asked again.
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
    eventsChecked: events.length,
    eventsLost: waiting.map((c) => c.what),
    eventsDeliveredMs,
  };
}

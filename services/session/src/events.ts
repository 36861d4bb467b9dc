/**
 * How sessions end without being deleted by hand: with their API session, their identity (deleted
 * or disabled), their service, or the identity's access to the service (a policy, service, posture
 * check or identity change). Consumers are durable (JetStream), idempotent and skip events they
 * handled (the inbox). An ending entity's sessions go in one indexed delete; a change of access
 * has only the sessions it may affect judged again, through the coalescing queue
 * (reevaluation-queue.ts), from what its event says changed. A reconciliation at start-up and
 * periodically ends whatever should have ended while no replica ran or an event was lost
 * (STYLE.md principle 9).
 */
import type { Bus, Subscription } from '@edge/bus';
import {
  API_SESSION_DELETED, IDENTITY_DELETED, IDENTITY_DISABLED, IDENTITY_UPDATED, POSTURE_CHECK_CHANGES, SERVICE_DELETED, SERVICE_POLICY_CHANGES,
  SERVICE_UPDATED, type PolicyRoles as PublishedRoles, type Received,
} from '@edge/events';
import { runInBackground } from '@edge/lifecycle';
import type { Logger } from '@edge/logging';
import type { RoleSelection } from './peers/index.js';
import type { Affected, ReevaluationQueue } from './reevaluation-queue.js';
import type { JudgeOptions, Reevaluation, Stale } from './reevaluation.js';
import type { Session } from './domain/session.js';
import type { SessionOwner, SessionPosition, SessionRecords } from './store/session.js';

/** Consumer group of this service: one replica handles each message. */
export const CONSUMER_GROUP = 'session';

/** Messages a re-evaluating consumer handles at once: they wait together in the queue, so a burst is judged in a few passes. */
const COALESCED = 64;
/** Sessions read and judged per step of a reconciliation. */
const PAGE = 500;

/** The roles of a policy as policy events carry them, unchecked. */
type PolicyRoles = Pick<Received<PublishedRoles>, 'semantic' | 'identityRoles' | 'serviceRoles'>;

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** The sessions a policy with these roles grants may be: its identities' sessions of its services. */
function grantedBy(p: PolicyRoles): Affected | undefined {
  if (typeof p !== 'object' || p === null || typeof p.semantic !== 'string' || !strings(p.identityRoles) || !strings(p.serviceRoles)) return undefined;
  const selection = (roles: string[]): { selection: RoleSelection } => ({ selection: { roles, semantic: p.semantic as string } });
  return { identities: selection(p.identityRoles), services: selection(p.serviceRoles) };
}

/**
 * What a service policy change may affect: the sessions its roles granted before and grant after.
 * An event that does not say (an older publisher) may affect every session.
 */
export function affectedByServicePolicy(data: { before?: PolicyRoles; after?: PolicyRoles } | null): Affected[] {
  const sides = [data?.before, data?.after].filter((x) => x !== undefined);
  const affected = sides.map(grantedBy);
  return sides.length === 0 || affected.includes(undefined) ? [{}] : (affected as Affected[]);
}

/** What a posture check change may affect: the sessions the service policies selecting it grant. */
export function affectedByPostureCheck(data: { servicePolicies?: PolicyRoles[] } | null): Affected[] {
  if (!Array.isArray(data?.servicePolicies)) return [{}];
  const affected = data.servicePolicies.map(grantedBy);
  return affected.includes(undefined) ? [{}] : (affected as Affected[]);
}

/** What else ends with an API session or a service (posture data, terminators); idempotent. */
export interface EndingHooks {
  apiSessionEnded?(id: string): Promise<unknown>;
  serviceDeleted?(id: string): Promise<unknown>;
}

/** Starts the consumers; the caller unsubscribes them on stop. */
export async function startSessionConsumers(
  bus: Bus, records: SessionRecords, queue: Pick<ReevaluationQueue, 'add'>, log: Logger, hooks: EndingHooks = {},
): Promise<Subscription[]> {
  const withId = (subject: string, handle: (id: string) => Promise<number>, concurrency = 1) =>
    bus.consume<{ id?: unknown }>(CONSUMER_GROUP, subject, async (msg) => {
      const id = msg.data?.id;
      if (typeof id !== 'string' || id === '') {
        log.warn({ subject: msg.subject }, 'event without an id, ignored');
        return;
      }
      const ended = await handle(id);
      if (ended > 0) log.info({ subject: msg.subject, id, ended }, 'sessions ended');
    }, { concurrency });
  const endOf = (owner: (id: string) => SessionOwner) => (id: string) => records.deleteOf(owner(id));
  // The queue logs what each pass ended, for every change in it.
  const judge = (affected: Affected[]) => Promise.all(affected.map((a) => queue.add(a))).then(() => 0);
  return [
    await withId(API_SESSION_DELETED, async (apiSessionId) => {
      await hooks.apiSessionEnded?.(apiSessionId);
      return records.deleteOf({ apiSessionId });
    }),
    await withId(IDENTITY_DELETED, async (identityId) => {
      await records.deleteFailures(identityId);
      return records.deleteOf({ identityId });
    }),
    await withId(IDENTITY_DISABLED, endOf((identityId) => ({ identityId }))),
    await withId(SERVICE_DELETED, async (serviceId) => {
      await hooks.serviceDeleted?.(serviceId);
      return records.deleteOf({ serviceId });
    }),
    await withId(IDENTITY_UPDATED, (id) => judge([{ identities: { ids: [id] } }]), COALESCED),
    await withId(SERVICE_UPDATED, (id) => judge([{ services: { ids: [id] } }]), COALESCED),
    await bus.consume<{ before?: PolicyRoles; after?: PolicyRoles }>(CONSUMER_GROUP, SERVICE_POLICY_CHANGES,
      async (msg) => void (await judge(affectedByServicePolicy(msg.data))), { concurrency: COALESCED }),
    await bus.consume<{ servicePolicies?: PolicyRoles[] }>(CONSUMER_GROUP, POSTURE_CHECK_CHANGES,
      async (msg) => void (await judge(affectedByPostureCheck(msg.data))), { concurrency: COALESCED }),
  ];
}

/** Where a pass over every session stands: after the last session of a page, in (identity, id) order. */
const cursorAfter = (page: readonly Session[]): string => JSON.stringify([page.at(-1)!.identityId, page.at(-1)!.id]);
/** The position a cursor names; none (the pass starts over) for one of the id-ordered passes before (an upgrade). */
const cursorAt = (cursor: string | undefined): SessionPosition | undefined => {
  if (cursor === undefined || !cursor.startsWith('[')) return undefined;
  try {
    const [identityId, id] = JSON.parse(cursor) as unknown[];
    return typeof identityId === 'string' && typeof id === 'string' ? { identityId, id } : undefined;
  } catch {
    return undefined;
  }
};

/**
 * One step of a reconciliation of every session: the next page after `cursor` judged in one batch
 * (API session gone, identity gone or disabled, access or posture lost), the stale ones ended.
 * Pages follow (identity, id) order, so each holds few identities and their grants are read once
 * a pass: in id order every page held sessions of most identities, and each page read all their
 * grants again. Returns where the next step starts, or undefined after the last page.
 */
export function createSessionReconcile(records: Pick<SessionRecords, 'pageByIdentity' | 'deleteOf'>, reevaluation: Pick<Reevaluation, 'staleAmong'>, log: Logger) {
  return async function step(cursor: string | undefined): Promise<string | undefined> {
    const page = await records.pageByIdentity(cursorAt(cursor), PAGE);
    const stale = await reevaluation.staleAmong(page, { apiSessions: true, posture: true });
    const ended = await records.deleteOf({ ids: stale.map((s) => s.id) });
    if (ended > 0) log.info({ ended, reasons: [...new Set(stale.map((s) => s.why))].slice(0, 5) }, 'sessions ended by reconciliation');
    return page.length < PAGE ? undefined : cursorAfter(page);
  };
}

/** Every session that should no longer exist, page by page (the data integrity check). */
export async function staleSessions(records: Pick<SessionRecords, 'pageByIdentity'>, reevaluation: Pick<Reevaluation, 'staleAmong'>, opts: JudgeOptions): Promise<Stale[]> {
  const stale: Stale[] = [];
  for (let after: SessionPosition | undefined; ;) {
    const page = await records.pageByIdentity(after, PAGE);
    stale.push(...(await reevaluation.staleAmong(page, opts)));
    if (page.length < PAGE) return stale;
    after = page.at(-1);
  }
}

/**
 * Runs `sweep` in the background at start-up, retried while the services it asks are not
 * reachable yet. Returns the function that cancels it.
 */
export function scheduleSweep(sweep: () => Promise<void>, log: Logger): () => void {
  return runInBackground(sweep, { what: 'sweep at start-up', log });
}

/** Ends every session that should have ended while no replica ran: a whole reconciliation pass. */
export async function sweepSessions(step: (cursor: string | undefined) => Promise<string | undefined>): Promise<void> {
  let cursor: string | undefined;
  do cursor = await step(cursor);
  while (cursor !== undefined);
}

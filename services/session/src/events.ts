/**
 * How sessions end without being deleted by hand: with their API session, their identity (deleted
 * or disabled), their service, or the identity's access to the service (a policy, service or
 * identity change). Consumers are durable (JetStream) and idempotent; a reconciliation at
 * start-up ends whatever should have ended while no replica ran (STYLE.md principle 9). As
 * OpenZiti's policy enforcer (controller/model/policy_enforcer.go), access is re-evaluated
 * rather than inferred from the event.
 */
import type { Bus, Subscription } from '@edge/bus';
import { runInBackground } from '@edge/lifecycle';
import type { Logger } from '@edge/logging';
import { groupBy } from './domain/group-by.js';
import type { Session } from './domain/session.js';
import type { PostureEnforcement } from './posture-enforcement.js';
import type { SessionPeers } from './peers.js';
import type { SessionOwner, SessionRecords } from './session-store.js';

/** Consumer group of this service: one replica handles each message. */
export const CONSUMER_GROUP = 'session';

export const Subjects = {
  apiSessionDeleted: 'edge.auth.api-session.deleted',
  identityDeleted: 'edge.identity.identity.deleted',
  identityDisabled: 'edge.identity.identity.disabled',
  identityUpdated: 'edge.identity.identity.updated',
  serviceDeleted: 'edge.policy.service.deleted',
  serviceUpdated: 'edge.policy.service.updated',
  /** Policy and posture check changes can take access away from anyone: everything is re-evaluated. */
  accessChanges: ['edge.policy.service-policy.>', 'edge.policy.posture-check.>'],
} as const;

/** What a reconciliation also looks at: API sessions that are gone, sessions whose posture fails. */
export interface ReconcileOptions {
  apiSessions?: boolean;
  posture?: Pick<PostureEnforcement, 'failing'>;
}

/** Sessions that should no longer exist, each with why (identity gone or disabled, access lost, API session gone, posture failing). */
export async function staleSessions(peers: SessionPeers, sessions: Session[], opts: ReconcileOptions = {}): Promise<Array<{ id: string; why: string }>> {
  const stale: Array<{ id: string; why: string }> = [];
  const byIdentity = groupBy(sessions, (s) => s.identityId);
  for (const [identityId, own] of byIdentity) {
    const who = await peers.identity(identityId);
    if (!who || who.disabled) {
      stale.push(...own.map((s) => ({ id: s.id, why: `identity ${identityId} ${who ? 'is disabled' : 'does not exist'}` })));
      continue;
    }
    for (const [serviceId, ofService] of groupBy(own, (s) => s.serviceId)) {
      const granted = await peers.grantedService(who, serviceId);
      for (const s of ofService) if (!granted?.permissions.includes(s.type)) stale.push({ id: s.id, why: `identity ${identityId} may no longer ${s.type.toLowerCase()} service ${serviceId}` });
    }
  }
  const left = () => {
    const ended = new Set(stale.map((x) => x.id));
    return sessions.filter((s) => !ended.has(s.id));
  };
  if (opts.apiSessions) {
    for (const [apiSessionId, of] of groupBy(left(), (s) => s.apiSessionId)) {
      if (!(await peers.apiSessionExists(apiSessionId))) stale.push(...of.map((s) => ({ id: s.id, why: `API session ${apiSessionId} does not exist` })));
    }
  }
  if (opts.posture) {
    for (const s of await opts.posture.failing(left())) stale.push({ id: s.id, why: `its posture checks for service ${s.serviceId} no longer pass` });
  }
  return stale;
}

/** Ends the sessions that should no longer exist; how many ended. */
export async function reconcile(records: SessionRecords, peers: SessionPeers, sessions: Session[], opts: ReconcileOptions = {}): Promise<number> {
  const stale = await staleSessions(peers, sessions, opts);
  return records.deleteOf({ ids: stale.map((s) => s.id) });
}

/** What else ends with an API session or a service (posture data, terminators); idempotent. */
export interface EndingHooks {
  apiSessionEnded?(id: string): Promise<unknown>;
  serviceDeleted?(id: string): Promise<unknown>;
}

/**
 * Starts the consumers; the caller unsubscribes them on stop. With `posture`, a re-evaluation
 * also ends the sessions whose posture checks no longer pass (a posture check or policy changed).
 */
export async function startSessionConsumers(
  bus: Bus, records: SessionRecords, peers: SessionPeers, log: Logger, hooks: EndingHooks = {}, posture?: ReconcileOptions['posture'],
): Promise<Subscription[]> {
  const withId = (subject: string, handle: (id: string) => Promise<number>) =>
    bus.consume<{ id?: unknown }>(CONSUMER_GROUP, subject, async (msg) => {
      const id = msg.data?.id;
      if (typeof id !== 'string' || id === '') {
        log.warn({ subject: msg.subject }, 'event without an id, ignored');
        return;
      }
      const ended = await handle(id);
      if (ended > 0) log.info({ subject: msg.subject, id, ended }, 'sessions ended');
    });
  const endOf = (owner: (id: string) => SessionOwner) => (id: string) => records.deleteOf(owner(id));
  const all = () => records.all().then((sessions) => reconcile(records, peers, sessions, { posture }));
  return [
    await withId(Subjects.apiSessionDeleted, async (apiSessionId) => {
      await hooks.apiSessionEnded?.(apiSessionId);
      return records.deleteOf({ apiSessionId });
    }),
    await withId(Subjects.identityDeleted, async (identityId) => {
      await records.deleteFailures(identityId);
      return records.deleteOf({ identityId });
    }),
    await withId(Subjects.identityDisabled, endOf((identityId) => ({ identityId }))),
    await withId(Subjects.serviceDeleted, async (serviceId) => {
      await hooks.serviceDeleted?.(serviceId);
      return records.deleteOf({ serviceId });
    }),
    await withId(Subjects.identityUpdated, async (id) => reconcile(records, peers, (await records.all()).filter((s) => s.identityId === id), { posture })),
    await withId(Subjects.serviceUpdated, async (id) => reconcile(records, peers, (await records.all()).filter((s) => s.serviceId === id), { posture })),
    ...(await Promise.all(Subjects.accessChanges.map((subject) => withId(subject, all)))),
  ];
}

/**
 * Runs `sweep` in the background at start-up, retried while the services it asks are not
 * reachable yet. Returns the function that cancels it.
 */
export function scheduleSweep(sweep: () => Promise<void>, log: Logger): () => void {
  return runInBackground(sweep, { what: 'sweep at start-up', log });
}

/** Ends every session that should have ended while no replica ran. */
export async function sweepSessions(records: SessionRecords, peers: SessionPeers, log: Logger, posture?: ReconcileOptions['posture']): Promise<void> {
  const ended = await reconcile(records, peers, await records.all(), { apiSessions: true, posture });
  if (ended > 0) log.info({ ended }, 'sessions ended by the start-up sweep');
}

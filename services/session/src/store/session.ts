/**
 * Every query on sessions and failed service requests.
 */
import type { Compilable, Kysely, Selectable } from 'kysely';
import { sql } from 'kysely';
import { precompiled } from '@edge/db';
import { createBatcher } from '@edge/rpc';
import { entityFields, field, runList, withCondition, type FieldMap, type ListPlan } from '@edge/zitiql';
import type { Session, SessionType } from '../domain/session.js';
import type { PolicyFailure } from '../domain/posture.js';
import type { SessionDb, SessionsTable } from './db.js';

/** What a filter on `/sessions` may read. */
export const SESSION_FIELDS: FieldMap = {
  ...entityFields(),
  type: field.string('type'),
  apiSession: field.string('api_session_id'),
  service: field.string('service_id'),
  identity: field.string('identity_id'),
};

/** A failed request as kept: OpenZiti keeps the most recent ones per identity. */
export interface FailedServiceRequest {
  apiSessionId: string;
  serviceId: string;
  serviceName: string;
  sessionType: string;
  policyFailures: PolicyFailure[];
  when: Date;
}

/** Failed requests kept per identity. */
const FAILED_REQUESTS_KEPT = 100;

function toDomain(r: Selectable<SessionsTable>): Session {
  return {
    id: r.id, token: r.token, apiSessionId: r.api_session_id, identityId: r.identity_id, serviceId: r.service_id,
    serviceName: r.service_name, type: r.type as SessionType, servicePolicyIds: r.service_policy_ids, tags: r.tags,
    createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

/** Which sessions an ending entity takes with it. */
export type SessionOwner = { apiSessionId: string } | { identityId: string } | { serviceId: string } | { ids: string[] };

/**
 * Which sessions a change may affect: every one (`all`), or those of any of `identityIds`, of any
 * of `serviceIds`, or of an identity in `pairs.identityIds` for a service in `pairs.serviceIds`.
 * Each condition is read through its index (identity_id, service_id).
 */
export interface SessionFilter {
  all?: boolean;
  identityIds: string[];
  serviceIds: string[];
  pairs?: { identityIds: string[]; serviceIds: string[] };
}

/** What identifies a session besides its id: one per (API session, service, type). */
interface SessionKey {
  apiSessionId: string;
  serviceId: string;
  type: string;
}

const keyOf = (k: SessionKey) => `${k.apiSessionId}\u0000${k.serviceId}\u0000${k.type}`;

/** A session as it is written. */
type NewSession = Omit<Session, 'createdAt' | 'updatedAt'>;

/** The columns a creation writes (the times are the database's). */
const INSERTED = ['id', 'token', 'api_session_id', 'identity_id', 'service_id', 'service_name', 'type', 'service_policy_ids', 'tags'] as const;

/** Where a session stands in (identity, id) order. */
export type SessionPosition = Pick<Session, 'identityId' | 'id'>;

/** Creates the session store over the service's own schema. */
export function createSessionRecords(db: Kysely<SessionDb>) {
  // The statements of every session creation: built and compiled once, kept prepared by the
  // server. Each answers many creations at once (arrays bound whole, so the SQL is the same for
  // any number of them).
  // Each key by the unique index, whatever the plan a connection cached while the table was small
  // (a lateral subquery kept apart by `offset 0`: a semi-join could turn into a scan of every session).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const d = db as any;
  const existingOf = (apiSessionIds: string[], serviceIds: string[], types: string[]) => d
    .selectFrom(d.selectNoFrom([
      sql`unnest(${apiSessionIds}::text[])`.as('a'), sql`unnest(${serviceIds}::text[])`.as('s'), sql`unnest(${types}::text[])`.as('t'),
    ]).as('k'))
    .innerJoinLateral((eb: typeof d) => eb.selectFrom('sessions').selectAll()
      .whereRef('sessions.api_session_id', '=', 'k.a').whereRef('sessions.service_id', '=', 'k.s').whereRef('sessions.type', '=', 'k.t')
      .offset(0).as('x'), (j: typeof d) => j.onTrue())
    .selectAll('x');
  const existing = precompiled(3, (apiSessionIds: string[], serviceIds: string[], types: string[]): Compilable<Selectable<SessionsTable>> =>
    existingOf(apiSessionIds, serviceIds, types));
  // The new rows, and the stored session of each row whose (API session, service, type) is
  // taken: the statement's snapshot holds the sessions stored before it, not those it inserts.
  const insert = precompiled(4, (rowsJson: string, apiSessionIds: string[], serviceIds: string[], types: string[]): Compilable<Selectable<SessionsTable>> => d
    .with('ins', (w: typeof d) => w.insertInto('sessions').columns(INSERTED)
      .expression(sql`select ${sql.join(INSERTED.map((c) => sql.ref(c)))} from jsonb_to_recordset(${rowsJson}::jsonb) as r(
        id text, token text, api_session_id text, identity_id text, service_id text, service_name text, type text, service_policy_ids text[], tags jsonb)`)
      .onConflict((oc: typeof d) => oc.columns(['api_session_id', 'service_id', 'type']).doNothing()).returningAll())
    .selectFrom('ins').selectAll()
    .unionAll(existingOf(apiSessionIds, serviceIds, types)));

  /** The sessions of many (API session, service, type), in one statement; undefined where none. */
  const findExistingMany = async (keys: SessionKey[]): Promise<Array<Session | undefined>> => {
    const rows = await existing(db, keys.map((k) => k.apiSessionId), keys.map((k) => k.serviceId), keys.map((k) => k.type));
    const found = new Map(rows.map((r) => [keyOf({ apiSessionId: r.api_session_id, serviceId: r.service_id, type: r.type }), toDomain(r)]));
    return keys.map((k) => found.get(keyOf(k)));
  };

  /**
   * Inserts many sessions in one statement. A row whose (API session, service, type) is taken is
   * answered with the stored session: read by the same statement when it was stored before, in
   * one more statement when a concurrent twin stored it meanwhile.
   */
  const createMany = async (sessions: NewSession[]): Promise<Array<Session | Error>> => {
    const rows = await insert(db, JSON.stringify(sessions.map((s) => ({
      id: s.id, token: s.token, api_session_id: s.apiSessionId, identity_id: s.identityId, service_id: s.serviceId, service_name: s.serviceName,
      type: s.type, service_policy_ids: s.servicePolicyIds, tags: s.tags,
    }))), sessions.map((s) => s.apiSessionId), sessions.map((s) => s.serviceId), sessions.map((s) => s.type));
    const stored = new Map(rows.map((r) => [keyOf({ apiSessionId: r.api_session_id, serviceId: r.service_id, type: r.type }), toDomain(r)]));
    const missing = sessions.filter((s) => !stored.has(keyOf(s)));
    if (missing.length > 0) {
      (await findExistingMany(missing)).forEach((twin, i) => {
        if (twin) stored.set(keyOf(missing[i]!), twin);
      });
    }
    return sessions.map((s) => stored.get(keyOf(s)) ?? new Error(`session ${s.id} was neither inserted nor found`));
  };

  // Creations arriving together share these statements (see createBatcher).
  const findBatched = createBatcher(findExistingMany);
  const createBatched = createBatcher(createMany);

  return {
    /** The session of (API session, service, type), if one exists. */
    async findExisting(apiSessionId: string, serviceId: string, type: SessionType): Promise<Session | undefined> {
      return findBatched({ apiSessionId, serviceId, type });
    },

    /** Inserts a session; a concurrent twin wins and is returned instead. */
    async create(s: NewSession): Promise<Session> {
      return createBatched(s);
    },

    async get(id: string, identityId = ''): Promise<Session | undefined> {
      let q = db.selectFrom('sessions').selectAll().where('id', '=', id);
      if (identityId) q = q.where('identity_id', '=', identityId);
      const r = await q.executeTakeFirst();
      return r && toDomain(r);
    },

    async list(plan: ListPlan, identityId = ''): Promise<{ items: Session[]; total: number }> {
      const scoped = identityId ? withCondition(plan, sql<boolean>`identity_id = ${identityId}`) : plan;
      const { rows, total } = await runList(db.selectFrom('sessions'), scoped, (qb) => qb.selectAll());
      return { items: (rows as Selectable<SessionsTable>[]).map(toDomain), total };
    },

    /** The sessions of one API session. */
    async ofApiSession(apiSessionId: string): Promise<Session[]> {
      return (await db.selectFrom('sessions').selectAll().where('api_session_id', '=', apiSessionId).orderBy('id').execute()).map(toDomain);
    },

    /** The next `limit` sessions after `after` that `filter` selects, in id order (reconciliation reads in pages). */
    async page(filter: SessionFilter, after: string, limit: number): Promise<Session[]> {
      let q = db.selectFrom('sessions').selectAll().where('id', '>', after);
      if (!filter.all) {
        const { identityIds, serviceIds, pairs } = filter;
        if (identityIds.length + serviceIds.length === 0 && !(pairs?.identityIds.length && pairs.serviceIds.length)) return [];
        q = q.where((eb) => eb.or([
          ...(identityIds.length ? [eb('identity_id', '=', sql<string>`any(${identityIds}::text[])`)] : []),
          ...(serviceIds.length ? [eb('service_id', '=', sql<string>`any(${serviceIds}::text[])`)] : []),
          ...(pairs?.identityIds.length && pairs.serviceIds.length
            ? [eb.and([eb('identity_id', '=', sql<string>`any(${pairs.identityIds}::text[])`), eb('service_id', '=', sql<string>`any(${pairs.serviceIds}::text[])`)])]
            : []),
        ]));
      }
      return (await q.orderBy('id').limit(limit).execute()).map(toDomain);
    },

    /**
     * The next `limit` sessions after `after` in (identity, id) order: a reconciliation's pages
     * each hold the sessions of a few identities, whose grants it then reads once a pass.
     */
    async pageByIdentity(after: SessionPosition | undefined, limit: number): Promise<Session[]> {
      let q = db.selectFrom('sessions').selectAll();
      if (after) q = q.where(sql<boolean>`(identity_id, id) > (${after.identityId}, ${after.id})`);
      return (await q.orderBy('identity_id').orderBy('id').limit(limit).execute()).map(toDomain);
    },

    /** Deletes the sessions of an owner; returns how many went (0 when already gone). */
    async deleteOf(owner: SessionOwner): Promise<number> {
      let q = db.deleteFrom('sessions');
      if ('apiSessionId' in owner) q = q.where('api_session_id', '=', owner.apiSessionId);
      else if ('identityId' in owner) q = q.where('identity_id', '=', owner.identityId);
      else if ('serviceId' in owner) q = q.where('service_id', '=', owner.serviceId);
      else if (owner.ids.length === 0) return 0;
      else q = q.where('id', 'in', owner.ids);
      return Number((await q.executeTakeFirst()).numDeletedRows);
    },

    /** Records a refused request and keeps only the newest ones of the identity. */
    async recordFailure(identityId: string, f: Omit<FailedServiceRequest, 'when'>): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('failed_service_requests').values({
          identity_id: identityId, api_session_id: f.apiSessionId, service_id: f.serviceId, service_name: f.serviceName,
          session_type: f.sessionType, policy_failures: JSON.stringify(f.policyFailures),
        }).execute();
        const keep = trx.selectFrom('failed_service_requests').select('id').where('identity_id', '=', identityId)
          .orderBy('failed_at', 'desc').orderBy('id', 'desc').limit(FAILED_REQUESTS_KEPT);
        await trx.deleteFrom('failed_service_requests').where('identity_id', '=', identityId).where('id', 'not in', keep).execute();
      });
    },

    /** Forgets the failed requests of a deleted identity; returns how many went. */
    async deleteFailures(identityId: string): Promise<number> {
      return Number((await db.deleteFrom('failed_service_requests').where('identity_id', '=', identityId).executeTakeFirst()).numDeletedRows);
    },

    async failures(identityId: string): Promise<FailedServiceRequest[]> {
      const rows = await db.selectFrom('failed_service_requests').selectAll().where('identity_id', '=', identityId)
        .orderBy('failed_at').orderBy('id').execute();
      return rows.map((r) => ({
        apiSessionId: r.api_session_id, serviceId: r.service_id, serviceName: r.service_name, sessionType: r.session_type,
        policyFailures: r.policy_failures, when: r.failed_at,
      }));
    },
  };
}

export type SessionRecords = ReturnType<typeof createSessionRecords>;

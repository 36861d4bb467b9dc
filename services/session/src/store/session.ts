/**
 * Every query on sessions and failed service requests.
 */
import type { Kysely, Selectable } from 'kysely';
import { sql } from 'kysely';
import { precompiled } from '@edge/db';
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

/** Creates the session store over the service's own schema. */
export function createSessionRecords(db: Kysely<SessionDb>) {
  // The statements of every session creation: built and compiled once, kept prepared by the server.
  const existing = precompiled(3, (apiSessionId: string, serviceId: string, type: SessionType) => db.selectFrom('sessions').selectAll()
    .where('api_session_id', '=', apiSessionId).where('service_id', '=', serviceId).where('type', '=', type));
  const insert = precompiled(9, (
    id: string, token: string, apiSessionId: string, identityId: string, serviceId: string, serviceName: string, type: SessionType,
    servicePolicyIds: string[], tags: string,
  ) => db.insertInto('sessions').values({
    id, token, api_session_id: apiSessionId, identity_id: identityId, service_id: serviceId, service_name: serviceName, type,
    service_policy_ids: servicePolicyIds, tags,
  }).onConflict((oc) => oc.columns(['api_session_id', 'service_id', 'type']).doNothing()).returningAll());

  return {
    /** The session of (API session, service, type), if one exists. */
    async findExisting(apiSessionId: string, serviceId: string, type: SessionType): Promise<Session | undefined> {
      const [r] = await existing(db, apiSessionId, serviceId, type);
      return r && toDomain(r);
    },

    /** Inserts a session in one statement; a concurrent twin wins and is returned instead. */
    async create(s: Omit<Session, 'createdAt' | 'updatedAt'>): Promise<Session> {
      const [inserted] = await insert(db, s.id, s.token, s.apiSessionId, s.identityId, s.serviceId, s.serviceName, s.type, s.servicePolicyIds, JSON.stringify(s.tags));
      return inserted ? toDomain(inserted) : (await this.findExisting(s.apiSessionId, s.serviceId, s.type))!;
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

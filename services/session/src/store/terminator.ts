/**
 * Every query on terminators.
 */
import type { Kysely, Selectable } from 'kysely';
import { sql } from 'kysely';
import { entityFields, field, runList, withCondition, type FieldMap, type ListPlan } from '@edge/zitiql';
import type { Precedence, Terminator, TerminatorInput } from '../domain/terminator.js';
import type { SessionDb, TerminatorsTable } from './db.js';

/** What a filter on `/terminators` may read (OpenZiti's terminator symbols that live here). */
export const TERMINATOR_FIELDS: FieldMap = {
  ...entityFields(),
  service: field.string('service_id'),
  router: field.string('router_id'),
  binding: field.string('binding'),
  address: field.string('address'),
  identity: field.string('identity'),
  cost: field.number('cost'),
  precedence: field.string('precedence'),
  hostId: field.string('host_id'),
  isSystem: field.bool(sql`false`),
};

function toDomain(r: Selectable<TerminatorsTable>): Terminator {
  return {
    id: r.id, serviceId: r.service_id, routerId: r.router_id, binding: r.binding, address: r.address, identity: r.identity,
    cost: r.cost, precedence: r.precedence as Precedence, savedPrecedence: r.saved_precedence as Precedence | null,
    hostId: r.host_id, tags: r.tags, createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

/** Which terminators an ending entity takes with it. */
export type TerminatorOwner = { serviceId: string } | { routerId: string } | { ids: string[] };

/** Creates the terminator store over the session schema. */
export function createTerminatorRecords(db: Kysely<SessionDb>) {
  const columns = (t: TerminatorInput) => ({
    router_id: t.routerId, binding: t.binding, address: t.address, cost: t.cost, precedence: t.precedence, tags: JSON.stringify(t.tags),
  });
  return {
    async insert(id: string, t: TerminatorInput): Promise<Terminator> {
      const row = await db.insertInto('terminators').values({
        id, service_id: t.serviceId, identity: t.identity, identity_secret: t.identitySecret || null, ...columns(t),
      }).returningAll().executeTakeFirstOrThrow();
      return toDomain(row);
    },

    async get(id: string): Promise<Terminator | undefined> {
      const r = await db.selectFrom('terminators').selectAll().where('id', '=', id).executeTakeFirst();
      return r && toDomain(r);
    },

    /** Writes the updatable fields; undefined when the terminator is gone. */
    async update(id: string, t: TerminatorInput): Promise<Terminator | undefined> {
      const r = await db.updateTable('terminators').set({ ...columns(t), updated_at: sql<Date>`date_trunc('milliseconds', now())` })
        .where('id', '=', id).returningAll().executeTakeFirst();
      return r && toDomain(r);
    },

    async list(plan: ListPlan, serviceId = ''): Promise<{ items: Terminator[]; total: number }> {
      const scoped = serviceId ? withCondition(plan, sql<boolean>`service_id = ${serviceId}`) : plan;
      const { rows, total } = await runList(db.selectFrom('terminators'), scoped, (qb) => qb.selectAll());
      return { items: (rows as Selectable<TerminatorsTable>[]).map(toDomain), total };
    },

    /** Every terminator (integrity runs and the start-up sweep read them in one pass). */
    async all(): Promise<Terminator[]> {
      return (await db.selectFrom('terminators').selectAll().orderBy('id').execute()).map(toDomain);
    },

    /** The next `limit` terminators after `after`, in id order (reconciliation reads in pages). */
    async page(after: string, limit: number): Promise<Terminator[]> {
      return (await db.selectFrom('terminators').selectAll().where('id', '>', after).orderBy('id').limit(limit).execute()).map(toDomain);
    },

    /** Deletes the terminators of an owner; how many went (0 when already gone). */
    async deleteOf(owner: TerminatorOwner): Promise<number> {
      let q = db.deleteFrom('terminators');
      if ('serviceId' in owner) q = q.where('service_id', '=', owner.serviceId);
      else if ('routerId' in owner) q = q.where('router_id', '=', owner.routerId);
      else if (owner.ids.length === 0) return 0;
      else q = q.where('id', 'in', owner.ids);
      return Number((await q.executeTakeFirst()).numDeletedRows);
    },
  };
}

export type TerminatorRecords = ReturnType<typeof createTerminatorRecords>;

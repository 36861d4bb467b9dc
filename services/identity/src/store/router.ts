/**
 * Every query on routers, and the row ↔ domain mapping. A tunneler-enabled edge router's
 * identity is written in the same transaction as the router, and so are the events of both.
 */
import type { Expression, Kysely, Selectable, SqlBool } from 'kysely';
import { sql } from 'kysely';
import { fieldError, notFound } from '@edge/errors';
import { inChunks, isUniqueViolation } from '@edge/db';
import { routerSubject } from '@edge/events';
import { entityFields, field, runList, type FieldMap, type ListPlan } from '@edge/zitiql';
import type { RoleColumns } from '@edge/roles';
import type { Json } from '../domain/identity.js';
import { routerIdentityWanted, type Router, type RouterInput, type RouterKind } from '../domain/router.js';
import { enqueueEvent } from '@edge/outbox';
import { routerIdentity, routerPayload, type IdentityEvents } from '../events.js';
import type { IdentityDb, RoutersTable } from './db.js';
import { toDomain as toIdentity } from './identity.js';

/** What a filter on `/edge-routers` and `/transit-routers` may read. */
export const ROUTER_FIELDS: FieldMap = {
  ...entityFields({ named: true }),
  roleAttributes: field.set('role_attributes'),
  appData: field.map('app_data'),
  cost: field.number('cost'),
  noTraversal: field.bool('no_traversal'),
  disabled: field.bool('disabled'),
  isTunnelerEnabled: field.bool('is_tunneler_enabled'),
  isVerified: field.bool('is_verified'),
  fingerprint: field.string('fingerprint', { nullable: true }),
  hostname: field.string('hostname'),
  configs: field.set('configs'),
};

/** The columns role lists match edge routers on. */
export const ROUTER_ROLE_COLUMNS: RoleColumns = { attributes: sql.ref('role_attributes'), id: sql.ref('id'), name: sql.ref('name') };

/** A stored router's listeners (address → groups); only strings count as groups. */
function listenersOf(stored: Json): Router['ctrlChanListeners'] {
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return {};
  return Object.fromEntries(Object.entries(stored).map(([address, groups]) => [address, Array.isArray(groups) ? groups.filter((g) => typeof g === 'string') : []]));
}

function toDomain(r: Selectable<RoutersTable>): Router {
  return {
    id: r.id, kind: r.kind, name: r.name, roleAttributes: r.role_attributes, tags: r.tags, appData: r.app_data, cost: r.cost,
    noTraversal: r.no_traversal, disabled: r.disabled, isTunnelerEnabled: r.is_tunneler_enabled, isVerified: r.is_verified,
    fingerprint: r.fingerprint, certPem: r.cert_pem, unverifiedFingerprint: r.unverified_fingerprint, unverifiedCertPem: r.unverified_cert_pem,
    hostname: r.hostname, supportedProtocols: r.supported_protocols, ctrlChanListeners: listenersOf(r.ctrl_chan_listeners), configs: r.configs,
    createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

function toRow(i: RouterInput) {
  return {
    name: i.name, role_attributes: i.roleAttributes, tags: JSON.stringify(i.tags) as unknown as Json, app_data: JSON.stringify(i.appData) as unknown as Json,
    cost: i.cost, no_traversal: i.noTraversal, disabled: i.disabled, is_tunneler_enabled: i.isTunnelerEnabled,
    ctrl_chan_listeners: JSON.stringify(i.ctrlChanListeners) as unknown as Json, configs: i.configs,
  };
}

function duplicateName(err: unknown, name: string): never {
  const v = isUniqueViolation(err);
  if (v?.constraint?.includes('name')) throw fieldError('name', `duplicate value '${name}' in unique index on routers store`, name);
  throw err;
}

/** Keeps the router's identity in step with the router (created, renamed or removed). */
async function syncRouterIdentity(trx: Kysely<IdentityDb>, router: Router): Promise<'created' | 'updated' | 'deleted' | undefined> {
  const existing = await trx.selectFrom('identities').select(['id', 'name']).where('id', '=', router.id).executeTakeFirst();
  if (routerIdentityWanted(router)) {
    if (!existing) {
      await trx.insertInto('identities').values({ id: router.id, name: router.name, type_id: 'Router', is_admin: false } as never).execute();
      return 'created';
    }
    if (existing.name === router.name) return undefined;
    await trx.updateTable('identities').set({ name: router.name, updated_at: sql<Date>`date_trunc('milliseconds', now())` }).where('id', '=', router.id).execute();
    return 'updated';
  }
  if (!existing) return undefined;
  await trx.deleteFrom('identities').where('id', '=', router.id).execute();
  return 'deleted';
}

/** The outcome of a write: the router and what happened to its identity. */
export interface RouterWrite {
  router: Router;
  identityChange?: 'created' | 'updated' | 'deleted';
}

/** Records the events of a router write in its transaction: the router's, then its identity's. */
async function announce(trx: Kysely<IdentityDb>, events: IdentityEvents, change: 'routerCreated' | 'routerUpdated' | 'routerDeleted', w: RouterWrite): Promise<RouterWrite> {
  await events[change](trx, w.router);
  if (w.identityChange === 'deleted') await events.deleted(trx, routerIdentity(w.router));
  else if (w.identityChange) {
    const row = await trx.selectFrom('identities').selectAll().where('id', '=', w.router.id).executeTakeFirst();
    if (row) await events[w.identityChange](trx, toIdentity(row));
  }
  return w;
}

/**
 * Many routers in a few statements (bulk import, which announces nothing); not for
 * tunneler-enabled routers, whose identity is made one by one.
 */
export async function insertRoutersInBulk(db: Kysely<IdentityDb>, kind: RouterKind, rows: ReadonlyArray<{ id: string; input: RouterInput }>): Promise<void> {
  // Each router is announced as created (services keep read models of routers); the service's
  // relay publishes the events when it next looks, now if it runs, else when it starts.
  await inChunks(rows, (chunk) => db.transaction().execute(async (trx) => {
    const inserted = await trx.insertInto('routers').values(chunk.map(({ id, input }) => ({ id, kind, ...toRow(input) }))).returningAll().execute();
    for (const row of inserted) await enqueueEvent(trx, routerSubject(kind, 'created'), routerPayload(toDomain(row)));
  }).catch((err: unknown) => duplicateName(err, chunk[0]!.input.name)));
}

/** Creates the router store over the identity service's schema; router identities are announced as identity events. */
export function createRouterStore(db: Kysely<IdentityDb>, events: IdentityEvents) {
  return {
    async insert(id: string, kind: RouterKind, input: RouterInput): Promise<RouterWrite> {
      try {
        return await events.transaction(async (trx) => {
          const row = await trx.insertInto('routers').values({ id, kind, ...toRow(input) }).returningAll().executeTakeFirstOrThrow();
          const router = toDomain(row);
          return announce(trx, events, 'routerCreated', { router, identityChange: await syncRouterIdentity(trx, router) });
        });
      } catch (err) {
        duplicateName(err, input.name);
      }
    },

    async get(kind: RouterKind, id: string): Promise<Router> {
      const row = await db.selectFrom('routers').selectAll().where('id', '=', id).where('kind', '=', kind).executeTakeFirst();
      if (!row) throw notFound(kind === 'edge' ? 'edge router' : 'transit router', id);
      return toDomain(row);
    },

    async list(kind: RouterKind, plan: ListPlan): Promise<{ items: Router[]; total: number }> {
      const { rows, total } = await runList(db.selectFrom('routers').where('kind', '=', kind), plan, (qb) => qb.selectAll());
      return { items: (rows as Selectable<RoutersTable>[]).map(toDomain), total };
    },

    async update(kind: RouterKind, id: string, input: RouterInput): Promise<RouterWrite> {
      try {
        return await events.transaction(async (trx) => {
          const row = await trx.updateTable('routers').set({ ...toRow(input), updated_at: sql<Date>`date_trunc('milliseconds', now())` })
            .where('id', '=', id).where('kind', '=', kind).returningAll().executeTakeFirst();
          if (!row) throw notFound(kind === 'edge' ? 'edge router' : 'transit router', id);
          const router = toDomain(row);
          return announce(trx, events, 'routerUpdated', { router, identityChange: await syncRouterIdentity(trx, router) });
        });
      } catch (err) {
        duplicateName(err, input.name);
      }
    },

    async delete(kind: RouterKind, id: string): Promise<RouterWrite | undefined> {
      return events.transaction(async (trx) => {
        const row = await trx.deleteFrom('routers').where('id', '=', id).where('kind', '=', kind).returningAll().executeTakeFirst();
        if (!row) return undefined;
        const router = toDomain(row);
        const gone = await trx.deleteFrom('identities').where('id', '=', id).where('type_id', '=', 'Router').executeTakeFirst();
        return announce(trx, events, 'routerDeleted', { router, identityChange: Number(gone.numDeletedRows) > 0 ? 'deleted' : undefined });
      });
    },

    /**
     * Records the client certificate a router enrolled with (verified), or with `null` drops it
     * (re-enrollment).
     */
    async setCertificate(kind: RouterKind, id: string, cert: { fingerprint: string; certPem: string } | null): Promise<RouterWrite> {
      return events.transaction(async (trx) => {
        const row = await trx.updateTable('routers')
          .set({ fingerprint: cert?.fingerprint ?? null, cert_pem: cert?.certPem ?? null, is_verified: cert !== null, updated_at: sql<Date>`date_trunc('milliseconds', now())` })
          .where('id', '=', id).where('kind', '=', kind).returningAll().executeTakeFirst();
        if (!row) throw notFound(kind === 'edge' ? 'edge router' : 'transit router', id);
        return announce(trx, events, 'routerUpdated', { router: toDomain(row) });
      });
    },

    /** Takes a deleted config out of every router holding it; the routers it changed. */
    async removeConfig(configId: string): Promise<Router[]> {
      return events.transaction(async (trx) => {
        const rows = await trx.updateTable('routers')
          .set({ configs: sql<string[]>`array_remove(configs, ${configId}::text)`, updated_at: sql<Date>`date_trunc('milliseconds', now())` })
          .where(sql<boolean>`${configId}::text = any(configs)`).returningAll().execute();
        for (const row of rows) await events.routerUpdated(trx, toDomain(row));
        return rows.map(toDomain);
      });
    },

    /** Every router holding a config (the integrity check). */
    async withConfigs(): Promise<Array<{ kind: RouterKind; id: string; configs: string[] }>> {
      return db.selectFrom('routers').select(['kind', 'id', 'configs']).where(sql<boolean>`cardinality(configs) > 0`).execute();
    },

    async listRoleAttributes(plan: ListPlan): Promise<{ items: string[]; total: number }> {
      const attributes = db.selectFrom('routers').where('kind', '=', 'edge').select(sql<string>`unnest(role_attributes)`.as('id')).distinct().as('attributes');
      const { rows, total } = await runList(db.selectFrom(attributes), plan, (qb) => qb.select('id'));
      return { items: (rows as { id: string }[]).map((r) => r.id), total };
    },

    async matchIds(cond: Expression<SqlBool>): Promise<string[]> {
      const rows = await db.selectFrom('routers').select('id').where('kind', '=', 'edge').where(cond).orderBy('id').execute();
      return rows.map((r) => r.id);
    },
  };
}

export type RouterStore = ReturnType<typeof createRouterStore>;

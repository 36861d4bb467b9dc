/**
 * The read model of edge routers: what the edge routers policies select need of the routers the
 * identity service owns (name, role attributes, and what sessions render), kept from its router
 * events and a periodic reconciliation, so the edge routers of a session are matched here.
 *
 * Each row carries the router's `updated_at` as its version: an event or a reconciled router
 * replaces it only when newer (or equally new and different), so a late older event never
 * overwrites a newer row and a repeated one changes nothing. A deletion leaves a row marked
 * deleted, which nothing older brings back.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Received, RouterEvent } from '@edge/events';
import { idInPage, type PageRange } from '@edge/outbox';
import { stringMap, type identity as ipb } from '@edge/proto';
import { selectedByCondition, type RoleColumns, type RoleSelection } from '@edge/roles';
import type { EdgeRoutersTable, PolicyDb } from './db.js';

/** An edge router as this model keeps it. */
export interface EdgeRouterRecord {
  id: string;
  name: string;
  roleAttributes: string[];
  hostname: string;
  cost: number;
  noTraversal: boolean;
  disabled: boolean;
  isTunnelerEnabled: boolean;
  supportedProtocols: Record<string, string>;
  appData: unknown;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS: RoleColumns = { attributes: sql.ref('role_attributes'), id: sql.ref('id'), name: sql.ref('name') };
const FILL = 'edge-routers';

/** The columns whose change is a change of the router (compared when two versions are equally new). */
const CONTENT = ['name', 'role_attributes', 'hostname', 'cost', 'no_traversal', 'disabled', 'is_tunneler_enabled', 'supported_protocols', 'app_data', 'deleted'] as const;
const contentOf = (table: string) => sql.join(CONTENT.map((c) => sql.ref(`${table}.${c}`)));

const toRow = (r: EdgeRouterRecord, deleted: boolean) => ({
  id: r.id, name: r.name, role_attributes: r.roleAttributes, hostname: r.hostname, cost: r.cost, no_traversal: r.noTraversal,
  disabled: r.disabled, is_tunneler_enabled: r.isTunnelerEnabled, supported_protocols: JSON.stringify(r.supportedProtocols),
  app_data: JSON.stringify(r.appData ?? {}), deleted, created_at: r.createdAt, updated_at: r.updatedAt, seen_at: sql<Date>`now()` as unknown as Date,
});

/** The Router message of a row: the fields the model keeps, the others empty. */
function toProto(r: Selectable<EdgeRoutersTable>): ipb.Router__Output {
  return {
    id: r.id, kind: 'edge', name: r.name, roleAttributes: r.role_attributes, tagsJson: '{}', appDataJson: JSON.stringify(r.app_data),
    cost: r.cost, noTraversal: r.no_traversal, disabled: r.disabled, isTunnelerEnabled: r.is_tunneler_enabled, isVerified: false,
    hostname: r.hostname, supportedProtocols: stringMap(r.supported_protocols), ctrlChanListeners: {},
    createdAt: r.created_at.toISOString(), updatedAt: r.updated_at.toISOString(), configs: [],
  };
}

/** The Router message of a row read as JSON (`to_jsonb` of a row: its timestamps as text). */
export function edgeRouterFromJson(j: Record<string, unknown>): ipb.Router__Output {
  const row = j as unknown as Selectable<EdgeRoutersTable>;
  return toProto({ ...row, created_at: new Date(j.created_at as string), updated_at: new Date(j.updated_at as string) });
}

const str = (v: unknown): v is string => typeof v === 'string';

/** The record of a router event's payload, or undefined when it lacks a field this model keeps. */
export function edgeRouterFromEvent(d: Received<RouterEvent>): EdgeRouterRecord | undefined {
  const { id, name, roleAttributes, hostname, cost, noTraversal, disabled, isTunnelerEnabled, createdAt, updatedAt } = d;
  if (!str(id) || id === '' || !str(name) || !Array.isArray(roleAttributes) || !roleAttributes.every(str) || !str(hostname)
    || typeof cost !== 'number' || typeof noTraversal !== 'boolean' || typeof disabled !== 'boolean' || typeof isTunnelerEnabled !== 'boolean'
    || !str(createdAt) || !str(updatedAt)) return undefined;
  const created = new Date(createdAt);
  const updated = new Date(updatedAt);
  if (Number.isNaN(created.getTime()) || Number.isNaN(updated.getTime())) return undefined;
  return {
    id, name, roleAttributes, hostname, cost, noTraversal, disabled, isTunnelerEnabled, supportedProtocols: stringMap(d.supportedProtocols),
    appData: d.appData ?? {}, createdAt: created, updatedAt: updated,
  };
}

/** The record of a Router message (what the identity service lists). */
export function edgeRouterFromProto(r: ipb.Router__Output): EdgeRouterRecord {
  const parse = (s: string) => (s ? JSON.parse(s) as unknown : {});
  return {
    id: r.id, name: r.name, roleAttributes: r.roleAttributes, hostname: r.hostname, cost: r.cost, noTraversal: r.noTraversal,
    disabled: r.disabled, isTunnelerEnabled: r.isTunnelerEnabled, supportedProtocols: r.supportedProtocols,
    appData: parse(r.appDataJson), createdAt: new Date(r.createdAt), updatedAt: new Date(r.updatedAt),
  };
}

/** The edge routers of an access: those both sides' policies select, and how many each side selects. */
export interface AccessRouters {
  edgeRouters: ipb.Router__Output[];
  identityEdgeRouterCount: number;
  serviceEdgeRouterCount: number;
}

/** Creates the read model over the policy schema. */
export function createEdgeRouterModel(db: Kysely<PolicyDb>) {
  let filled = false;
  let checkedAt = 0;

  async function upsert(records: readonly EdgeRouterRecord[], deleted: boolean): Promise<string[]> {
    if (records.length === 0) return [];
    const rows = await db.insertInto('edge_routers').values(records.map((r) => toRow(r, deleted)))
      .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({
        name: eb.ref('excluded.name'), role_attributes: eb.ref('excluded.role_attributes'), hostname: eb.ref('excluded.hostname'),
        cost: eb.ref('excluded.cost'), no_traversal: eb.ref('excluded.no_traversal'), disabled: eb.ref('excluded.disabled'),
        is_tunneler_enabled: eb.ref('excluded.is_tunneler_enabled'), supported_protocols: eb.ref('excluded.supported_protocols'),
        app_data: eb.ref('excluded.app_data'), deleted: eb.ref('excluded.deleted'), created_at: eb.ref('excluded.created_at'),
        updated_at: eb.ref('excluded.updated_at'), seen_at: eb.ref('excluded.seen_at'),
      })).where(sql<boolean>`not edge_routers.deleted and (edge_routers.updated_at < excluded.updated_at
        or (edge_routers.updated_at = excluded.updated_at and (${contentOf('edge_routers')}) is distinct from (${contentOf('excluded')})))`))
      .returning('id').execute();
    return rows.map((r) => r.id);
  }

  const live = () => db.selectFrom('edge_routers').where('deleted', '=', false);

  return {
    /** Applies a router's state (an event); a deletion marks the row deleted. True when the row changed. */
    async apply(record: EdgeRouterRecord, change: 'changed' | 'deleted'): Promise<boolean> {
      return (await upsert([record], change === 'deleted')).length > 0;
    },

    /** Applies many routers' states in one statement (reconciliation); the ids whose row changed. */
    applyMany: (records: readonly EdgeRouterRecord[]) => upsert(records, false),

    /**
     * Marks deleted the rows with ids after `afterId` (and up to `throughId`, when given) not in
     * `present` that nothing touched since `quietSince`: what the identity service no longer lists.
     */
    async markDeletedExcept(range: PageRange, present: readonly string[], quietSince: Date): Promise<number> {
      let q = db.updateTable('edge_routers')
        .set({ deleted: true, updated_at: sql<Date>`greatest(updated_at, now())`, seen_at: sql<Date>`now()` })
        .where('deleted', '=', false).where('seen_at', '<', quietSince).where(idInPage(range));
      if (present.length > 0) q = q.where('id', 'not in', present);
      return Number((await q.executeTakeFirst()).numUpdatedRows);
    },

    /** Records that a reconciliation pass completed: from now on the model answers. */
    async markFilled(): Promise<void> {
      await db.insertInto('edge_router_model_fill').values({ name: FILL, completed_at: new Date() })
        .onConflict((oc) => oc.column('name').doUpdateSet({ completed_at: (eb) => eb.ref('excluded.completed_at') })).execute();
      filled = true;
    },

    /** Whether some pass over the identity service's list completed (asked at most once a second until it has). */
    async isFilled(): Promise<boolean> {
      if (filled || Date.now() - checkedAt < 1_000) return filled;
      checkedAt = Date.now();
      filled = (await db.selectFrom('edge_router_model_fill').select('name').where('name', '=', FILL).executeTakeFirst()) !== undefined;
      return filled;
    },

    /** Every edge router some role list of `selectedBy` and some of `alsoSelectedBy` select, as the identity service orders them. */
    async selected(selectedBy: RoleSelection[], alsoSelectedBy: RoleSelection[]): Promise<ipb.Router__Output[]> {
      if (selectedBy.length === 0 || alsoSelectedBy.length === 0) return [];
      const rows = await live().selectAll()
        .where(selectedByCondition({ selections: selectedBy }, COLUMNS)!).where(selectedByCondition({ selections: alsoSelectedBy }, COLUMNS)!)
        .orderBy('created_at').orderBy('id').execute();
      return rows.map(toProto);
    },

    /** How many edge routers some role list of `selectedBy` selects. */
    async countSelected(selectedBy: RoleSelection[]): Promise<number> {
      if (selectedBy.length === 0) return 0;
      const row = await live().select(sql<string>`count(*)`.as('n')).where(selectedByCondition({ selections: selectedBy }, COLUMNS)!).executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export type EdgeRouterModel = ReturnType<typeof createEdgeRouterModel>;

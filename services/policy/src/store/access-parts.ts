/**
 * The parts an access answer is made of, each read by a statement of its own, so that each can
 * be kept and shared: what the policies select of the identity (its service policies, the edge
 * routers its edge router policies select), what they select of the service (the service
 * policies selecting it with their posture checks, the edge routers its service edge router
 * policies select), and the edge routers both select, read by id from the read model. The matching is the same as in
 * the one-statement read (access.ts): the same branches, through the same indexes.
 *
 * Every part carries `access_version` (migration 008_access_parts) as read in its own statement: parts of one
 * version are parts of one state of the tables.
 */
import { sql, type RawBuilder } from 'kysely';
import { precompiled } from '@edge/db';
import type { identity as ipb } from '@edge/proto';
import { routersSelectedBy, withIdentityRouterPolicies, withServiceRouterPolicies } from './access.js';
import type { PolicyKysely } from './db.js';
import { edgeRouterFromJson } from './edge-router-model.js';
import { groupGrantingPolicies, selectPolicyChecks, withPostureChecks, type GrantingPolicyRows, type PolicyCheckRow } from './evaluation.js';
import { selectingIds } from './policy.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** What the policies select of one identity (its id and role attributes). */
export interface IdentityPart {
  version: number;
  /** The service policies selecting the identity, by id, with their type. */
  policyTypes: Map<string, 'Dial' | 'Bind'>;
  /** The live edge routers its edge router policies select. */
  routerIds: Set<string>;
}

/** What the policies select of one service; `service` undefined when it does not exist. */
export interface ServicePart {
  version: number;
  service?: { id: string; name: string };
  /** The service policies selecting the service, with their posture checks, in the one-statement read's order. */
  policies: GrantingPolicyRows;
  /** The live edge routers its service edge router policies select. */
  routerIds: Set<string>;
}

/** Live edge routers of the read model, in the order the identity service lists them. */
export interface RouterList {
  version: number;
  routers: ipb.Router__Output[];
}

const versionOf = (eb: Any) => eb.selectFrom('access_version').select('version');

/** `select coalesce(array_agg(id), '{}') from <cte>` (a CTE of router ids). */
const idsOf = (cte: string) => sql<string[]>`(select coalesce(array_agg(id), '{}') from ${sql.table(cte)})`;

export function createAccessPartsStore(db: PolicyKysely) {
  const d = db as Any;

  const identityStatement = precompiled(2, (identityId: string, roleAttributes: string[]) => {
    let q = d.with('sp', (c: Any) => c.selectFrom('service_policies as p').select(['p.id', 'p.type'])
      .where('p.id', 'in', selectingIds(d, 'service_policies', 'identity', sql`${identityId}::text`, sql`${roleAttributes}::text[]`)));
    q = withIdentityRouterPolicies(q, db, { identityId, roleAttributes }).with('by_identity', (x: Any) => routersSelectedBy(x, 'erp'));
    return q.selectNoFrom((eb: Any) => [
      versionOf(eb).as('version'),
      sql`(select coalesce(json_agg(json_build_array(sp.id, sp.type)), '[]') from sp)`.as('policies'),
      idsOf('by_identity').as('routers'),
    ]);
  });

  /** The part of the service whose id is `serviceId` (a column of the statement around it). */
  const servicePart = (serviceId: RawBuilder<string>) => {
    let q = d.with('svc', (c: Any) => c.selectFrom('services').select(['id', 'name', 'role_attributes']).where('id', '=', serviceId));
    q = withPostureChecks(q, (x) => x.selectFrom('service_policies')
      .where('id', 'in', selectingIds(d, 'service_policies', 'service', sql`(select svc.id from svc)`, sql`(select svc.role_attributes from svc)`)));
    q = withServiceRouterPolicies(q, db).with('by_service', (x: Any) => routersSelectedBy(x, 'serp'));
    // Left joins from a one-row version: a missing service still answers its version (named apart
    // from the posture checks' own `version`).
    const from = q.selectFrom(versionOf(d).as('v')).leftJoin('svc', (j: Any) => j.onTrue()).leftJoin('gp', (j: Any) => j.onTrue());
    return selectPolicyChecks(from).select(['v.version as access_version', 'svc.id as service_id', 'svc.name as service_name', idsOf('by_service').as('routers')]);
  };

  // The parts of many services in one statement (one snapshot, so one version): each asked id's
  // part, laterally, in the order asked.
  const servicesStatement = precompiled(1, (ids: string[]) => d
    .selectFrom(sql`unnest(${ids}::text[]) with ordinality`.as(sql.raw('k(sid, n)') as Any))
    .innerJoinLateral(servicePart(sql.ref('k.sid')).as('part'), (j: Any) => j.onTrue())
    .select('k.n as asked').selectAll('part')
    // The part's own order within each service (selectPolicyChecks).
    .orderBy('k.n').orderBy('part.policy_id').orderBy('part.created_at').orderBy('part.id'));

  const routersStatement = precompiled(1, (ids: string[]) => d.selectNoFrom((eb: Any) => [
    versionOf(eb).as('version'),
    eb.selectFrom('edge_routers as r').select(sql`coalesce(json_agg(to_jsonb(r) - 'seen_at' order by r.created_at, r.id), '[]')`.as('routers'))
      .where('r.deleted', '=', false).where(sql<boolean>`r.id = any(array(select unnest(${ids}::text[])))`).as('routers'),
  ]));

  const versionStatement = precompiled(0, () => d.selectFrom('access_version').select('version'));

  return {
    /** The counter as it stands now. */
    async version(): Promise<number> {
      const [row] = await versionStatement(db) as Array<{ version: string | number }>;
      return Number(row!.version);
    },

    async identity(identityId: string, roleAttributes: string[]): Promise<IdentityPart> {
      const [row] = await identityStatement(db, identityId, roleAttributes) as Array<{ version: string | number; policies: Array<[string, 'Dial' | 'Bind']>; routers: string[] }>;
      return { version: Number(row!.version), policyTypes: new Map(row!.policies), routerIds: new Set(row!.routers) };
    },

    /** The parts of the services `ids` (one statement), in their order: one without `service` for an id that is none. */
    async services(ids: readonly string[]): Promise<ServicePart[]> {
      const rows = await servicesStatement(db, [...ids]) as Array<PolicyCheckRow & { asked: string | number; access_version: string | number; service_id: string | null; service_name: string | null; routers: string[] | null }>;
      const byAsked = ids.map((): typeof rows => []);
      for (const r of rows) byAsked[Number(r.asked) - 1]!.push(r);
      return byAsked.map((mine) => {
        const first = mine[0]!;
        if (first.service_id === null) return { version: Number(first.access_version), policies: [], routerIds: new Set<string>() };
        return {
          version: Number(first.access_version), service: { id: first.service_id, name: first.service_name! },
          policies: groupGrantingPolicies(mine), routerIds: new Set(first.routers ?? []),
        };
      });
    },

    /** The live edge routers among `ids`, by primary key. */
    async routers(ids: string[]): Promise<RouterList> {
      const [row] = await routersStatement(db, ids) as Array<{ version: string | number; routers: Array<Record<string, unknown>> }>;
      return { version: Number(row!.version), routers: row!.routers.map(edgeRouterFromJson) };
    },
  };
}

export type AccessPartsStore = ReturnType<typeof createAccessPartsStore>;

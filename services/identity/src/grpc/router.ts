/**
 * gRPC handlers for edge and transit routers, and role matching of edge routers; their proto ↔
 * domain mapping.
 */
import { newId } from '@edge/ids';
import type { AsyncHandlers } from '@edge/rpc';
import { stringMap, type IdentityServiceHandlers, type identity as pb } from '@edge/proto';
import { matchRolesCondition, roleAttributesAnswer, roleFilterCondition, selectedByCondition } from '@edge/roles';
import { listMeta, listParams, planList, withCondition } from '@edge/zitiql';
import { parseJson } from '../domain/identity.js';
import { applyRouterUpdate, routerKind, validateRouterInput, type Router, type RouterInput } from '../domain/router.js';
import { ROUTER_FIELDS, ROUTER_ROLE_COLUMNS, type RouterStore } from '../store/router.js';

/** The domain input of a RouterFields message. */
export function routerFieldsToInput(f: pb.RouterFields__Output | null | undefined): RouterInput {
  const x = f ?? ({} as pb.RouterFields__Output);
  return {
    name: x.name ?? '',
    roleAttributes: x.roleAttributes ?? [],
    tags: parseJson('tags', x.tagsJson),
    appData: parseJson('appData', x.appDataJson),
    cost: x.cost ?? 0,
    noTraversal: x.noTraversal ?? false,
    disabled: x.disabled ?? false,
    isTunnelerEnabled: x.isTunnelerEnabled ?? false,
    ctrlChanListeners: Object.fromEntries(Object.entries(x.ctrlChanListeners ?? {}).map(([address, g]) => [address, g.groups ?? []])),
    configs: x.configs ?? [],
  };
}

/** The Router message of a stored router. */
export function routerToProto(r: Router): pb.Router {
  return {
    id: r.id, kind: r.kind, name: r.name, roleAttributes: r.roleAttributes, tagsJson: JSON.stringify(r.tags), appDataJson: JSON.stringify(r.appData),
    cost: r.cost, noTraversal: r.noTraversal, disabled: r.disabled, isTunnelerEnabled: r.isTunnelerEnabled, isVerified: r.isVerified,
    fingerprint: r.fingerprint ?? undefined, certPem: r.certPem ?? undefined, unverifiedFingerprint: r.unverifiedFingerprint ?? undefined,
    unverifiedCertPem: r.unverifiedCertPem ?? undefined, hostname: r.hostname, supportedProtocols: stringMap(r.supportedProtocols),
    ctrlChanListeners: Object.fromEntries(Object.entries(r.ctrlChanListeners).map(([address, groups]) => [address, { groups }])), configs: r.configs, createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString(),
  };
}

type Handlers = AsyncHandlers<IdentityServiceHandlers>;

export type RouterHandlers = Pick<Handlers, 'CreateRouter' | 'GetRouter' | 'ListRouters' | 'UpdateRouter' | 'DeleteRouter' | 'ListEdgeRouterRoleAttributes' | 'MatchEdgeRouters'
  | 'SetRouterCertificate' | 'ReEnrollRouter'>;

/** Builds the router handlers; the store announces every write (router and router identity events). */
export function createRouterHandlers(routers: RouterStore): RouterHandlers {
  return {
    async CreateRouter(req) {
      const kind = routerKind(req.kind);
      const input = routerFieldsToInput(req.fields);
      validateRouterInput(input);
      // The caller has checked the configs and creates the enrollment (the gateway: owners.ts).
      const written = await routers.insert(newId(), kind, input);
      return { id: written.router.id };
    },

    async GetRouter(req) {
      return routerToProto(await routers.get(routerKind(req.kind), req.id));
    },

    async ListRouters(req) {
      const kind = routerKind(req.kind);
      const roles = kind === 'edge' ? roleFilterCondition(req.query, ROUTER_ROLE_COLUMNS) : undefined;
      let plan = withCondition(planList(ROUTER_FIELDS, listParams(req.query)), roles);
      plan = withCondition(plan, selectedByCondition(req.selectedBy, ROUTER_ROLE_COLUMNS));
      plan = withCondition(plan, selectedByCondition(req.alsoSelectedBy, ROUTER_ROLE_COLUMNS));
      const { items, total } = await routers.list(kind, plan);
      return { routers: items.map(routerToProto), meta: listMeta(plan, total, ROUTER_FIELDS) };
    },

    async UpdateRouter(req) {
      const kind = routerKind(req.kind);
      const current = await routers.get(kind, req.id);
      const next = applyRouterUpdate(current, routerFieldsToInput(req.fields), req.updateMask);
      validateRouterInput(next);
      await routers.update(kind, req.id, next);
      return {};
    },

    async DeleteRouter(req) {
      const kind = routerKind(req.kind);
      await routers.get(kind, req.id);
      await routers.delete(kind, req.id);
      return {};
    },

    async ListEdgeRouterRoleAttributes(req) {
      const { items, meta } = await roleAttributesAnswer(req.query, (plan) => routers.listRoleAttributes(plan));
      return { roleAttributes: items, meta };
    },

    async MatchEdgeRouters(req) {
      return { ids: await routers.matchIds(matchRolesCondition(req, ROUTER_ROLE_COLUMNS)) };
    },

    async SetRouterCertificate(req) {
      const kind = routerKind(req.kind);
      await routers.setCertificate(kind, req.id, { fingerprint: req.fingerprint, certPem: req.certPem });
      return {};
    },

    /** Drops the certificate: the caller has had the pki service issue a new enrollment first (the old token stops working). */
    async ReEnrollRouter(req) {
      const kind = routerKind(req.kind);
      await routers.get(kind, req.id);
      await routers.setCertificate(kind, req.id, null);
      return {};
    },
  };
}

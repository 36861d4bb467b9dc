/**
 * gRPC handlers for edge and transit routers, and role matching of edge routers.
 */
import { newId } from '@edge/ids';
import type { AsyncHandlers } from '@edge/rpc';
import type { IdentityServiceHandlers } from '@edge/proto';
import { matchRolesCondition, roleAttributesPage, roleFilterCondition, selectedByCondition } from '@edge/roles';
import { listMeta, listParams, planList, withCondition } from '@edge/zitiql';
import { applyRouterUpdate, routerKind, validateRouterInput } from './domain/router.js';
import { routerFieldsToInput, routerToProto } from './router-map.js';
import { ROUTER_FIELDS, ROUTER_ROLE_COLUMNS, type RouterStore } from './router-store.js';
import type { EnrollmentClient } from './enrollments.js';

type Handlers = AsyncHandlers<IdentityServiceHandlers>;

/**
 * Checks the configs a router is to hold, by asking the policy service (their owner): each must
 * exist, target routers, and be the router's only one of its type. Asked before the write, never
 * inside its transaction.
 */
export type RouterConfigCheck = (configIds: string[]) => Promise<void>;
export type RouterHandlers = Pick<Handlers, 'CreateRouter' | 'GetRouter' | 'ListRouters' | 'UpdateRouter' | 'DeleteRouter' | 'ListEdgeRouterRoleAttributes' | 'MatchEdgeRouters'
  | 'SetRouterCertificate' | 'ReEnrollRouter'>;

/** Builds the router handlers; the store announces every write (router and router identity events). */
export function createRouterHandlers(routers: RouterStore, enrollments: EnrollmentClient, checkConfigs: RouterConfigCheck): RouterHandlers {
  return {
    async CreateRouter(req) {
      const kind = routerKind(req.kind);
      const input = routerFieldsToInput(req.fields);
      validateRouterInput(input);
      if (input.configs.length > 0) await checkConfigs(input.configs);
      const written = await routers.insert(newId(), kind, input);
      try {
        // as edge_router_manager.go: a new router comes with its enrollment, or not at all
        await enrollments.replaceForRouter(kind, written.router.id);
      } catch (err) {
        // Its created event is already recorded: the deleted one follows it.
        await routers.delete(kind, written.router.id);
        throw err;
      }
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
      // As validateRouterConfigs: checked when the update sets them.
      if (req.updateMask.includes('configs') && next.configs.length > 0) await checkConfigs(next.configs);
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
      return roleAttributesPage(req.query, (plan) => routers.listRoleAttributes(plan));
    },

    async MatchEdgeRouters(req) {
      return { ids: await routers.matchIds(matchRolesCondition(req, ROUTER_ROLE_COLUMNS)) };
    },

    async SetRouterCertificate(req) {
      const kind = routerKind(req.kind);
      await routers.setCertificate(kind, req.id, { fingerprint: req.fingerprint, certPem: req.certPem });
      return {};
    },

    /** A new enrollment first (the old token stops working), then the certificate is dropped. */
    async ReEnrollRouter(req) {
      const kind = routerKind(req.kind);
      await routers.get(kind, req.id);
      await enrollments.replaceForRouter(kind, req.id);
      await routers.setCertificate(kind, req.id, null);
      return {};
    },
  };
}

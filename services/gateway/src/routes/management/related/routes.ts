/**
 * Sub-lists that relate entities of different owners through policies: the policies that select
 * an identity or an edge router (the policy service matches them against the entity's id and
 * role attributes), and the entities those policies select in turn (the identity service
 * matches the policies' role lists against its own tables).
 */
import type { FastifyRequest } from 'fastify';
import { entityRef, ok } from '@edge/envelope';
import type { common, policy } from '@edge/proto';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { idParam } from '../../shared/entity.js';
import { listBody, listQuery } from '../../shared/list.js';
import { renderPolicy } from '../../shared/policies.js';
import { allPages } from '@edge/rpc';
import { roleSelections } from '../../shared/related.js';
import { renderIdentity } from '../../shared/render.js';
import { renderService } from '../services/map.js';
import { renderEdgeRouters } from '../routers/map.js';

async function renderIdentities(clients: Clients, page: { identities: Parameters<typeof renderIdentity>[0][]; meta: common.ListMeta__Output | null }) {
  const { summaries } = await clients.auth.getIdentityAuthSummaries({ identityIds: page.identities.map((i) => i.id) });
  const byId = new Map(summaries.map((s) => [s.identityId, s]));
  return listBody(page.identities.map((i) => renderIdentity(i, byId.get(i.id))), page.meta);
}

/** Registers the identity, edge router and service sub-lists that cross owners. */
export function registerRelatedRoutes(route: Router, base: string, clients: Clients): void {
  const identityScope = async (req: FastifyRequest) => {
    const i = await clients.identity.getIdentity({ id: idParam(req.params) });
    return { id: i.id, roleAttributes: i.roleAttributes };
  };
  const routerScope = async (req: FastifyRequest) => {
    const r = await clients.identity.getRouter({ kind: 'edge', id: idParam(req.params) });
    return { id: r.id, roleAttributes: r.roleAttributes };
  };
  const edgeRouterPoliciesOf = async (scope: { edgeRouter: policy.RoleScope }) =>
    allPages(async (query: common.ListQuery) => {
      const p = await clients.policy.listEdgeRouterPolicies({ query, ...scope });
      return { items: p.edgeRouterPolicies, meta: p.meta };
    });

  route('GET', `${base}/identities/:id/service-policies`, 'admin', async (req) => {
    const page = await clients.policy.listServicePolicies({ query: listQuery(req), identity: await identityScope(req) });
    return { body: listBody(page.servicePolicies.map((p) => renderPolicy(p, 'service-policies')), page.meta) };
  });

  route('GET', `${base}/identities/:id/edge-router-policies`, 'admin', async (req) => {
    const page = await clients.policy.listEdgeRouterPolicies({ query: listQuery(req), identity: await identityScope(req) });
    return { body: listBody(page.edgeRouterPolicies.map((p) => renderPolicy(p, 'edge-router-policies')), page.meta) };
  });

  route('GET', `${base}/identities/:id/services`, 'admin', async (req) => {
    const scope = await identityScope(req);
    const policyType = (req.query as Record<string, unknown>).policyType;
    const page = await clients.policy.listServicesForIdentity({
      identityId: scope.id, roleAttributes: scope.roleAttributes, configTypes: [], query: listQuery(req), policyType: typeof policyType === 'string' ? policyType : '',
    });
    return { body: listBody(page.services.map(renderService), page.meta) };
  });

  route('GET', `${base}/identities/:id/edge-routers`, 'admin', async (req) => {
    const scope = await identityScope(req);
    const page = await clients.policy.listEdgeRoutersForIdentity({ identityId: scope.id, roleAttributes: scope.roleAttributes, query: listQuery(req) });
    return { body: listBody(await renderEdgeRouters(clients, page.routers), page.meta) };
  });

  route('GET', `${base}/edge-routers/:id/edge-router-policies`, 'admin', async (req) => {
    const page = await clients.policy.listEdgeRouterPolicies({ query: listQuery(req), edgeRouter: await routerScope(req) });
    return { body: listBody(page.edgeRouterPolicies.map((p) => renderPolicy(p, 'edge-router-policies')), page.meta) };
  });

  route('GET', `${base}/edge-routers/:id/service-edge-router-policies`, 'admin', async (req) => {
    const page = await clients.policy.listServiceEdgeRouterPolicies({ query: listQuery(req), edgeRouter: await routerScope(req) });
    return { body: listBody(page.serviceEdgeRouterPolicies.map((p) => renderPolicy(p, 'service-edge-router-policies')), page.meta) };
  });

  route('GET', `${base}/edge-routers/:id/services`, 'admin', async (req) => {
    const page = await clients.policy.listServices({ query: listQuery(req), configTypes: [], edgeRouter: await routerScope(req) });
    return { body: listBody(page.services.map(renderService), page.meta) };
  });

  route('GET', `${base}/edge-routers/:id/identities`, 'admin', async (req) => {
    const policies = await edgeRouterPoliciesOf({ edgeRouter: await routerScope(req) });
    const page = await clients.identity.listIdentities({ query: listQuery(req), selectedBy: roleSelections(policies, (p: policy.EdgeRouterPolicy__Output) => p.identityRoles) });
    return { body: await renderIdentities(clients, page) };
  });

  route('GET', `${base}/services/:id/identities`, 'admin', async (req) => {
    const serviceId = idParam(req.params);
    await clients.policy.getService({ id: serviceId });
    const policies = await allPages(async (query) => {
      const p = await clients.policy.listServicePolicies({ query, serviceId });
      return { items: p.servicePolicies, meta: p.meta };
    });
    const page = await clients.identity.listIdentities({ query: listQuery(req), selectedBy: roleSelections(policies, (p: policy.ServicePolicy__Output) => p.identityRoles) });
    return { body: await renderIdentities(clients, page) };
  });

  route('GET', `${base}/services/:id/edge-routers`, 'admin', async (req) => {
    const serviceId = idParam(req.params);
    await clients.policy.getService({ id: serviceId, configTypes: [] });
    const policies = await allPages(async (query: common.ListQuery) => {
      const p = await clients.policy.listServiceEdgeRouterPolicies({ query, serviceId });
      return { items: p.serviceEdgeRouterPolicies, meta: p.meta };
    });
    const page = await clients.identity.listRouters({ kind: 'edge', query: listQuery(req), selectedBy: roleSelections(policies, (p: policy.ServiceEdgeRouterPolicy__Output) => p.edgeRouterRoles) });
    return { body: listBody(await renderEdgeRouters(clients, page.routers), page.meta) };
  });

  // Why an identity can or cannot use a service (as OpenZiti's policy advice): the policy types
  // granting it, and the edge routers both sides reach (the policy service answers both).
  route('GET', `${base}/identities/:id/policy-advice/:serviceId`, 'admin', async (req) => {
    const { serviceId } = req.params as { serviceId: string };
    const who = await clients.identity.getIdentity({ id: idParam(req.params) });
    const access = await clients.policy.getServiceAccess({
      identityId: who.id, roleAttributes: who.roleAttributes, serviceId, grantedOnly: false, edgeRouters: true, edgeRouterCounts: true,
    });
    return {
      body: ok({
        identityId: who.id,
        identity: entityRef('identities', 'identities', who.id, who.name),
        serviceId,
        service: entityRef('services', 'services', serviceId, access.serviceName),
        isDialAllowed: access.permissions.includes('Dial'),
        isBindAllowed: access.permissions.includes('Bind'),
        identityRouterCount: access.identityEdgeRouterCount,
        serviceRouterCount: access.serviceEdgeRouterCount,
        commonRouters: access.edgeRouters.map((r) => ({ ...entityRef('edge-routers', 'edge-routers', r.id, r.name), isOnline: false })),
      }),
    };
  });
}

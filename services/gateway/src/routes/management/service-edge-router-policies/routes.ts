/**
 * Management `/service-edge-router-policies`: CRUD and the services and edge routers a policy
 * selects.
 */
import type { policy } from '@edge/proto';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { idParam } from '../../shared/entity.js';
import { listBody, listQuery } from '../../shared/list.js';
import { listPolicyEdgeRouters, registerPolicyRoutes } from '../../shared/policies.js';
import { renderService } from '../services/map.js';
import { serviceEdgeRouterPolicyCreate, serviceEdgeRouterPolicyPatch } from './schemas.js';

const FIELDS = ['name', 'semantic', 'serviceRoles', 'edgeRouterRoles', 'tags'];

function toFields(b: Record<string, unknown>): policy.ServiceEdgeRouterPolicyFields {
  return {
    name: (b.name as string) ?? '', semantic: (b.semantic as string) ?? '', serviceRoles: (b.serviceRoles as string[]) ?? [],
    edgeRouterRoles: (b.edgeRouterRoles as string[]) ?? [], tagsJson: JSON.stringify(b.tags ?? {}),
  };
}

export function registerServiceEdgeRouterPolicyRoutes(route: Router, base: string, clients: Clients): void {
  const p = clients.policy;
  registerPolicyRoutes(route, base, {
    collection: 'service-edge-router-policies',
    list: async (query) => { const r = await p.listServiceEdgeRouterPolicies({ query }); return { items: r.serviceEdgeRouterPolicies, meta: r.meta }; },
    get: (id) => p.getServiceEdgeRouterPolicy({ id }),
    create: (fields) => p.createServiceEdgeRouterPolicy({ fields }),
    update: (id, fields, updateMask) => p.updateServiceEdgeRouterPolicy({ id, fields, updateMask }),
    delete: (id) => p.deleteServiceEdgeRouterPolicy({ id }),
    schemas: { create: serviceEdgeRouterPolicyCreate, update: serviceEdgeRouterPolicyCreate, patch: serviceEdgeRouterPolicyPatch },
    fields: FIELDS,
    toFields,
  });

  route('GET', `${base}/service-edge-router-policies/:id/services`, 'admin', async (req) => {
    const page = await p.listServices({ query: listQuery(req), serviceEdgeRouterPolicyId: idParam(req.params), configTypes: [] });
    return { body: listBody(page.services.map(renderService), page.meta) };
  });

  route('GET', `${base}/service-edge-router-policies/:id/edge-routers`, 'admin', async (req) => ({
    body: await listPolicyEdgeRouters(req, clients, await p.getServiceEdgeRouterPolicy({ id: idParam(req.params) })),
  }));
}

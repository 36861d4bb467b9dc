/**
 * Management `/edge-router-policies`: CRUD and the identities and edge routers a policy selects.
 */
import type { policy } from '@edge/proto';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { idParam } from '../../shared/entity.js';
import { listPolicyEdgeRouters, listPolicyIdentities, registerPolicyRoutes } from '../../shared/policies.js';
import { edgeRouterPolicyCreate, edgeRouterPolicyPatch } from './schemas.js';

const FIELDS = ['name', 'semantic', 'identityRoles', 'edgeRouterRoles', 'tags'];

function toFields(b: Record<string, unknown>): policy.EdgeRouterPolicyFields {
  return {
    name: (b.name as string) ?? '', semantic: (b.semantic as string) ?? '', identityRoles: (b.identityRoles as string[]) ?? [],
    edgeRouterRoles: (b.edgeRouterRoles as string[]) ?? [], tagsJson: JSON.stringify(b.tags ?? {}),
  };
}

export function registerEdgeRouterPolicyRoutes(route: Router, base: string, clients: Clients): void {
  const p = clients.policy;
  registerPolicyRoutes(route, base, {
    collection: 'edge-router-policies',
    list: async (query) => { const r = await p.listEdgeRouterPolicies({ query }); return { items: r.edgeRouterPolicies, meta: r.meta }; },
    get: (id) => p.getEdgeRouterPolicy({ id }),
    create: (fields) => p.createEdgeRouterPolicy({ fields }),
    update: (id, fields, updateMask) => p.updateEdgeRouterPolicy({ id, fields, updateMask }),
    delete: (id) => p.deleteEdgeRouterPolicy({ id }),
    schemas: { create: edgeRouterPolicyCreate, update: edgeRouterPolicyCreate, patch: edgeRouterPolicyPatch },
    fields: FIELDS,
    toFields,
  });

  route('GET', `${base}/edge-router-policies/:id/identities`, 'admin', async (req) => ({
    body: await listPolicyIdentities(req, clients, await p.getEdgeRouterPolicy({ id: idParam(req.params) })),
  }));

  route('GET', `${base}/edge-router-policies/:id/edge-routers`, 'admin', async (req) => ({
    body: await listPolicyEdgeRouters(req, clients, await p.getEdgeRouterPolicy({ id: idParam(req.params) })),
  }));
}

/**
 * Management `/service-policies`: CRUD and the services, identities and posture checks a
 * policy selects.
 */
import type { policy } from '@edge/proto';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { idParam } from '../../shared/entity.js';
import { listBody, listQuery } from '../../shared/list.js';
import { listPolicyIdentities, registerPolicyRoutes } from '../../shared/policies.js';
import { renderPostureCheck } from '../posture-checks/map.js';
import { renderService } from '../services/map.js';
import { servicePolicyCreate, servicePolicyPatch } from './schemas.js';

const FIELDS = ['name', 'type', 'semantic', 'identityRoles', 'serviceRoles', 'postureCheckRoles', 'tags'];

function toFields(b: Record<string, unknown>): policy.ServicePolicyFields {
  return {
    name: (b.name as string) ?? '', type: (b.type as string) ?? '', semantic: (b.semantic as string) ?? '',
    identityRoles: (b.identityRoles as string[]) ?? [], serviceRoles: (b.serviceRoles as string[]) ?? [],
    postureCheckRoles: (b.postureCheckRoles as string[]) ?? [], tagsJson: JSON.stringify(b.tags ?? {}),
  };
}

export function registerServicePolicyRoutes(route: Router, base: string, clients: Clients): void {
  const p = clients.policy;
  registerPolicyRoutes(route, base, {
    collection: 'service-policies',
    list: async (query) => { const r = await p.listServicePolicies({ query }); return { items: r.servicePolicies, meta: r.meta }; },
    get: (id) => p.getServicePolicy({ id }),
    create: (fields) => p.createServicePolicy({ fields }),
    update: (id, fields, updateMask) => p.updateServicePolicy({ id, fields, updateMask }),
    delete: (id) => p.deleteServicePolicy({ id }),
    schemas: { create: servicePolicyCreate, update: servicePolicyCreate, patch: servicePolicyPatch },
    fields: FIELDS,
    toFields,
  });
  const url = `${base}/service-policies/:id`;

  route('GET', `${url}/services`, 'admin', async (req) => {
    const page = await p.listServices({ query: listQuery(req), servicePolicyId: idParam(req.params), configTypes: [] });
    return { body: listBody(page.services.map(renderService), page.meta) };
  });

  route('GET', `${url}/identities`, 'admin', async (req) => ({
    body: await listPolicyIdentities(req, clients, await p.getServicePolicy({ id: idParam(req.params) })),
  }));

  route('GET', `${url}/posture-checks`, 'admin', async (req) => {
    const page = await p.listPostureChecks({ query: listQuery(req), servicePolicyId: idParam(req.params) });
    return { body: listBody(page.postureChecks.map(renderPostureCheck), page.meta) };
  });
}

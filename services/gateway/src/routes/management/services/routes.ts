/**
 * Management `/services`: CRUD, the sub-lists of a service, and `/service-role-attributes`.
 * The writes on one service are shared with the client API.
 */
import { created, empty, ok } from '@edge/envelope';
import { parseBody } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { idParam, presentFields } from '../../shared/entity.js';
import { listBody, listQuery } from '../../shared/list.js';
import { renderConfig } from '../configs/map.js';
import { renderPolicy } from '../../shared/policies.js';
import { configTypesParam, renderService, toFields, UPDATE_FIELDS } from './map.js';
import { serviceCreate, servicePatch, serviceUpdate } from './schemas.js';

export function registerServiceRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/services`;

  route('GET', url, 'admin', async (req) => {
    const page = await clients.policy.listServices({ query: listQuery(req), configTypes: configTypesParam(req) });
    return { body: listBody(page.services.map(renderService), page.meta) };
  });

  route('POST', url, 'admin', async (req) => {
    const { id } = await clients.policy.createService({ fields: toFields(parseBody(serviceCreate, req.body)) });
    return { status: 201, body: created(id, 'services') };
  }, { body: serviceCreate, status: 201 });

  route('GET', `${url}/:id`, 'admin', async (req) => {
    const s = await clients.policy.getService({ id: idParam(req.params), configTypes: configTypesParam(req) });
    return { body: ok(renderService(s)) };
  });

  registerServiceWriteRoutes(route, base, clients);

  route('GET', `${url}/:id/configs`, 'admin', async (req) => {
    const page = await clients.policy.listConfigs({ query: listQuery(req), serviceId: idParam(req.params) });
    return { body: listBody(page.configs.map(renderConfig), page.meta) };
  });

  route('GET', `${url}/:id/service-policies`, 'admin', async (req) => {
    const page = await clients.policy.listServicePolicies({ query: listQuery(req), serviceId: idParam(req.params) });
    return { body: listBody(page.servicePolicies.map((p) => renderPolicy(p, 'service-policies')), page.meta) };
  });

  route('GET', `${url}/:id/service-edge-router-policies`, 'admin', async (req) => {
    const page = await clients.policy.listServiceEdgeRouterPolicies({ query: listQuery(req), serviceId: idParam(req.params) });
    return { body: listBody(page.serviceEdgeRouterPolicies.map((p) => renderPolicy(p, 'service-edge-router-policies')), page.meta) };
  });

  route('GET', `${base}/service-role-attributes`, 'admin', async (req) => {
    const page = await clients.policy.listServiceRoleAttributes({ query: listQuery(req) });
    return { body: listBody(page.attributes, page.meta) };
  });
}

/**
 * `PUT`, `PATCH` and `DELETE /services/{id}`, admin only. Both APIs serve them: the client spec
 * lists them too (updateService, patchService, deleteService in client.yml).
 */
export function registerServiceWriteRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/services`;

  route('PUT', `${url}/:id`, 'admin', async (req) => {
    await clients.policy.updateService({ id: idParam(req.params), fields: toFields(parseBody(serviceUpdate, req.body)), updateMask: UPDATE_FIELDS });
    return { body: empty() };
  }, { body: serviceUpdate });

  route('PATCH', `${url}/:id`, 'admin', async (req) => {
    const body = parseBody(servicePatch, req.body);
    await clients.policy.updateService({ id: idParam(req.params), fields: toFields(body), updateMask: presentFields(req.body, UPDATE_FIELDS) });
    return { body: empty() };
  }, { body: servicePatch });

  route('DELETE', `${url}/:id`, 'admin', async (req) => {
    await clients.policy.deleteService({ id: idParam(req.params) });
    return { body: empty() };
  });
}

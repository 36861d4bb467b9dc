/**
 * Management `/config-types`: CRUD and `/config-types/{id}/configs`.
 */
import { created, empty, ok } from '@edge/envelope';
import { parseBody } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { idParam, presentFields } from '../../shared/entity.js';
import { listBody, listQuery } from '../../shared/list.js';
import { renderConfig } from '../configs/map.js';
import { renderConfigType, toFields, UPDATE_FIELDS } from './map.js';
import { configTypeCreate, configTypePatch, configTypeUpdate } from './schemas.js';

export function registerConfigTypeRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/config-types`;

  route('GET', url, 'admin', async (req) => {
    const page = await clients.policy.listConfigTypes({ query: listQuery(req) });
    return { body: listBody(page.configTypes.map(renderConfigType), page.meta) };
  });

  route('POST', url, 'admin', async (req) => {
    const { id } = await clients.policy.createConfigType({ fields: toFields(parseBody(configTypeCreate, req.body)) });
    return { status: 201, body: created(id, 'config-types') };
  }, { body: configTypeCreate, status: 201 });

  route('GET', `${url}/:id`, 'admin', async (req) => ({ body: ok(renderConfigType(await clients.policy.getConfigType({ id: idParam(req.params) }))) }));

  route('PUT', `${url}/:id`, 'admin', async (req) => {
    await clients.policy.updateConfigType({ id: idParam(req.params), fields: toFields(parseBody(configTypeUpdate, req.body)), updateMask: UPDATE_FIELDS });
    return { body: empty() };
  }, { body: configTypeUpdate });

  route('PATCH', `${url}/:id`, 'admin', async (req) => {
    const body = parseBody(configTypePatch, req.body);
    await clients.policy.updateConfigType({ id: idParam(req.params), fields: toFields(body), updateMask: presentFields(req.body, UPDATE_FIELDS) });
    return { body: empty() };
  }, { body: configTypePatch });

  route('DELETE', `${url}/:id`, 'admin', async (req) => {
    await clients.policy.deleteConfigType({ id: idParam(req.params) });
    return { body: empty() };
  });

  route('GET', `${url}/:id/configs`, 'admin', async (req) => {
    const page = await clients.policy.listConfigs({ query: listQuery(req), configTypeId: idParam(req.params) });
    return { body: listBody(page.configs.map(renderConfig), page.meta) };
  });
}

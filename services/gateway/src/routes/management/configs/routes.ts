/**
 * Management `/configs`: CRUD and `/configs/{id}/services`.
 */
import { created, empty, ok } from '@edge/envelope';
import { parseBody } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { idParam, presentFields } from '../../shared/entity.js';
import { listBody, listQuery } from '../../shared/list.js';
import { renderService } from '../services/map.js';
import { renderConfig, toFields, UPDATE_FIELDS } from './map.js';
import { configCreate, configPatch, configUpdate } from './schemas.js';

export function registerConfigRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/configs`;

  route('GET', url, 'admin', async (req) => {
    const page = await clients.policy.listConfigs({ query: listQuery(req) });
    return { body: listBody(page.configs.map(renderConfig), page.meta) };
  });

  route('POST', url, 'admin', async (req) => {
    const { id } = await clients.policy.createConfig({ fields: toFields(parseBody(configCreate, req.body)) });
    return { status: 201, body: created(id, 'configs') };
  }, { body: configCreate, status: 201 });

  route('GET', `${url}/:id`, 'admin', async (req) => ({ body: ok(renderConfig(await clients.policy.getConfig({ id: idParam(req.params) }))) }));

  route('PUT', `${url}/:id`, 'admin', async (req) => {
    await clients.policy.updateConfig({ id: idParam(req.params), fields: toFields(parseBody(configUpdate, req.body)), updateMask: UPDATE_FIELDS });
    return { body: empty() };
  }, { body: configUpdate });

  route('PATCH', `${url}/:id`, 'admin', async (req) => {
    const body = parseBody(configPatch, req.body);
    await clients.policy.updateConfig({ id: idParam(req.params), fields: toFields(body), updateMask: presentFields(req.body, UPDATE_FIELDS) });
    return { body: empty() };
  }, { body: configPatch });

  route('DELETE', `${url}/:id`, 'admin', async (req) => {
    await clients.policy.deleteConfig({ id: idParam(req.params) });
    return { body: empty() };
  });

  route('GET', `${url}/:id/services`, 'admin', async (req) => {
    const page = await clients.policy.listServices({ query: listQuery(req), configId: idParam(req.params), configTypes: [] });
    return { body: listBody(page.services.map(renderService), page.meta) };
  });
}

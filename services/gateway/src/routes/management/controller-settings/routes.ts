/**
 * Management `/controller-settings`: list, create and detail, and on `/{id}/effective` (where the
 * spec puts them) the effective settings and the update, patch and delete of a settings object.
 * Admin only, as OpenZiti's controller/internal/routes/controller_setting_router.go.
 */
import { created, empty, ok } from '@edge/envelope';
import { parseBody } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { idParam } from '../../shared/entity.js';
import { listBody, listQuery } from '../../shared/list.js';
import { patchMask, renderControllerSetting, renderEffective, toFields, UPDATE_FIELDS } from './map.js';
import { controllerSettingCreate, controllerSettingUpdate } from './schemas.js';

export function registerControllerSettingRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/controller-settings`;
  const effective = `${url}/:id/effective`;

  route('GET', url, 'admin', async (req) => {
    const page = await clients.session.listControllerSettings({ query: listQuery(req) });
    return { body: listBody(page.controllerSettings.map(renderControllerSetting), page.meta) };
  });

  route('POST', url, 'admin', async (req) => {
    const b = parseBody(controllerSettingCreate, req.body);
    const { id } = await clients.session.createControllerSetting({ controllerId: b.controllerId, fields: toFields(b) });
    return { status: 201, body: created(id, 'controller-settings') };
  }, { body: controllerSettingCreate, status: 201 });

  route('GET', `${url}/:id`, 'admin', async (req) => {
    return { body: ok(renderControllerSetting(await clients.session.getControllerSetting({ id: idParam(req.params) }))) };
  });

  route('GET', effective, 'admin', async (req) => {
    return { body: ok(renderEffective(await clients.session.getControllerSettingEffective({ id: idParam(req.params) }))) };
  });

  route('PUT', effective, 'admin', async (req) => {
    const fields = toFields(parseBody(controllerSettingUpdate, req.body));
    await clients.session.updateControllerSetting({ id: idParam(req.params), fields, updateMask: UPDATE_FIELDS });
    return { body: empty() };
  }, { body: controllerSettingUpdate });

  route('PATCH', effective, 'admin', async (req) => {
    const fields = toFields(parseBody(controllerSettingUpdate, req.body));
    await clients.session.updateControllerSetting({ id: idParam(req.params), fields, updateMask: patchMask(req.body) });
    return { body: empty() };
  }, { body: controllerSettingUpdate });

  route('DELETE', effective, 'admin', async (req) => {
    await clients.session.deleteControllerSetting({ id: idParam(req.params) });
    return { body: empty() };
  });
}

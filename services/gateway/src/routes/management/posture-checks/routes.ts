/**
 * Management `/posture-checks` (CRUD), `/posture-check-types` and
 * `/posture-check-role-attributes`.
 */
import { created, empty, ok, selfLink } from '@edge/envelope';
import { parseBody } from '@edge/schemas';
import type { policy } from '@edge/proto';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { idParam, jsonObject, presentFields } from '../../shared/entity.js';
import { listBody, listQuery } from '../../shared/list.js';
import { fieldsOf, renderPostureCheck, toFields } from './map.js';
import { postureCheckCreate, postureCheckPatch, postureCheckUpdate } from './schemas.js';

/** `postureCheckTypeDetail`. */
function renderPostureCheckType(t: policy.PostureCheckType__Output) {
  return {
    id: t.id, createdAt: t.createdAt, updatedAt: t.updatedAt, _links: selfLink('posture-check-types', t.id), tags: jsonObject(t.tagsJson),
    name: t.name, operatingSystems: t.operatingSystems.map((o) => ({ type: o.type, versions: o.versions })), version: t.version,
  };
}

export function registerPostureCheckRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/posture-checks`;
  const p = clients.policy;

  route('GET', url, 'admin', async (req) => {
    const page = await p.listPostureChecks({ query: listQuery(req) });
    return { body: listBody(page.postureChecks.map(renderPostureCheck), page.meta) };
  });

  route('POST', url, 'admin', async (req) => {
    const { id } = await p.createPostureCheck({ fields: toFields(parseBody(postureCheckCreate, req.body)) });
    return { status: 201, body: created(id, 'posture-checks') };
  }, { body: postureCheckCreate, status: 201 });

  route('GET', `${url}/:id`, 'admin', async (req) => ({ body: ok(renderPostureCheck(await p.getPostureCheck({ id: idParam(req.params) }))) }));

  route('PUT', `${url}/:id`, 'admin', async (req) => {
    const body = parseBody(postureCheckUpdate, req.body);
    await p.updatePostureCheck({ id: idParam(req.params), fields: toFields(body), updateMask: fieldsOf(body.typeId) });
    return { body: empty() };
  }, { body: postureCheckUpdate });

  route('PATCH', `${url}/:id`, 'admin', async (req) => {
    const body = parseBody(postureCheckPatch, req.body);
    await p.updatePostureCheck({ id: idParam(req.params), fields: toFields(body), updateMask: presentFields(req.body, fieldsOf(body.typeId)).filter((f) => f !== 'typeId') });
    return { body: empty() };
  }, { body: postureCheckPatch });

  route('DELETE', `${url}/:id`, 'admin', async (req) => {
    await p.deletePostureCheck({ id: idParam(req.params) });
    return { body: empty() };
  });

  route('GET', `${base}/posture-check-types`, 'admin', async (req) => {
    const page = await p.listPostureCheckTypes({ query: listQuery(req) });
    return { body: listBody(page.postureCheckTypes.map(renderPostureCheckType), page.meta) };
  });

  route('GET', `${base}/posture-check-types/:id`, 'admin', async (req) => ({
    body: ok(renderPostureCheckType(await p.getPostureCheckType({ id: idParam(req.params) }))),
  }));

  route('GET', `${base}/posture-check-role-attributes`, 'admin', async (req) => {
    const page = await p.listPostureCheckRoleAttributes({ query: listQuery(req) });
    return { body: listBody(page.attributes, page.meta) };
  });
}

/**
 * Management `/terminators` (list, create, detail, replace, patch, delete) and
 * `/services/{id}/terminators`.
 */
import { created, empty, ok } from '@edge/envelope';
import { parseBody } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { idParam, presentFields } from '../../shared/entity.js';
import { listBody, listQuery } from '../../shared/list.js';
import { renderTerminator, toFields, UPDATE_FIELDS } from './map.js';
import { terminatorCreate, terminatorPatch, terminatorUpdate } from './schemas.js';

export function registerTerminatorRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/terminators`;

  route('GET', url, 'admin', async (req) => {
    const page = await clients.session.listTerminators({ query: listQuery(req), serviceId: '' });
    return { body: listBody(page.terminators.map(renderTerminator), page.meta) };
  });

  route('POST', url, 'admin', async (req) => {
    const { id } = await clients.session.createTerminator({ fields: toFields(parseBody(terminatorCreate, req.body)) });
    return { status: 201, body: created(id, 'terminators') };
  }, { body: terminatorCreate, status: 201 });

  route('GET', `${url}/:id`, 'admin', async (req) => {
    return { body: ok(renderTerminator(await clients.session.getTerminator({ id: idParam(req.params) }))) };
  });

  route('PUT', `${url}/:id`, 'admin', async (req) => {
    const fields = toFields(parseBody(terminatorUpdate, req.body));
    await clients.session.updateTerminator({ id: idParam(req.params), fields, updateMask: UPDATE_FIELDS });
    return { body: empty() };
  }, { body: terminatorUpdate });

  route('PATCH', `${url}/:id`, 'admin', async (req) => {
    const fields = toFields(parseBody(terminatorPatch, req.body));
    await clients.session.updateTerminator({ id: idParam(req.params), fields, updateMask: presentFields(req.body, UPDATE_FIELDS) });
    return { body: empty() };
  }, { body: terminatorPatch });

  route('DELETE', `${url}/:id`, 'admin', async (req) => {
    await clients.session.deleteTerminator({ id: idParam(req.params) });
    return { body: empty() };
  });

  route('GET', `${base}/services/:id/terminators`, 'admin', async (req) => {
    const page = await clients.session.listTerminators({ query: listQuery(req), serviceId: idParam(req.params) });
    return { body: listBody(page.terminators.map(renderTerminator), page.meta) };
  });
}

/**
 * Management `/cas`: list (ZitiQL filters), create, detail, replace, patch, delete, verify (a PEM
 * certificate signed by the CA, as text) and the CA's static enrollment JWT (as ca_router.go).
 */
import { created, empty, ok } from '@edge/envelope';
import { ZitiError } from '@edge/errors';
import { parseBody } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { listBody, listQuery } from '../../shared/list.js';
import { ALL_FIELDS, patchMask, renderCa, toCaFields } from './map.js';
import { caCreate, caPatch, caUpdate } from './schemas.js';

type Params = { id: string };

/** Registers the CA routes under the management base path. */
export function registerCaRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/cas`;
  const id = (req: { params: unknown }) => (req.params as Params).id;

  route('GET', url, 'admin', async (req) => {
    const page = await clients.pki.listCas({ query: listQuery(req) });
    return { body: listBody(page.cas.map(renderCa), page.meta) };
  });

  route('POST', url, 'admin', async (req) => {
    const r = await clients.pki.createCa(toCaFields(parseBody(caCreate, req.body)));
    return { status: 201, body: created(r.id, 'cas') };
  }, { body: caCreate, status: 201 });

  route('GET', `${url}/:id`, 'admin', async (req) => ({ body: ok(renderCa(await clients.pki.getCa({ id: id(req) }))) }));

  route('PUT', `${url}/:id`, 'admin', async (req) => {
    await clients.pki.updateCa({ id: id(req), fields: toCaFields(parseBody(caUpdate, req.body)), updateMask: ALL_FIELDS });
    return { body: empty() };
  }, { body: caUpdate });

  route('PATCH', `${url}/:id`, 'admin', async (req) => {
    const body = parseBody(caPatch, req.body);
    await clients.pki.updateCa({ id: id(req), fields: toCaFields(body), updateMask: patchMask(req.body) });
    return { body: empty() };
  }, { body: caPatch });

  route('DELETE', `${url}/:id`, 'admin', async (req) => {
    await clients.pki.deleteCa({ id: id(req) });
    return { body: empty() };
  });

  route('POST', `${url}/:id/verify`, 'admin', async (req) => {
    if (typeof req.body !== 'string' || req.body.trim() === '') {
      throw new ZitiError('COULD_NOT_PARSE_BODY', { causeMessage: 'the body must be a PEM certificate (text/plain)' });
    }
    await clients.pki.verifyCa({ id: id(req), certPem: req.body });
    return { body: empty() };
  }, { textBody: true });

  route('GET', `${url}/:id/jwt`, 'admin', async (req) => {
    const { jwt } = await clients.pki.getCaJwt({ id: id(req) });
    return { body: jwt, contentType: 'application/jwt' };
  });
}

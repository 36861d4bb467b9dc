/**
 * Management `/external-jwt-signers` (list, create, detail, replace, patch, delete) and the
 * client API's list of enabled signers, which SDKs read before they log in.
 */
import { created, empty, ok } from '@edge/envelope';
import { parseBody } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { listBody, listQuery } from '../../shared/list.js';
import { ALL_FIELDS, renderClientSigner, renderSigner, toSignerFields } from './map.js';
import { extJwtSignerCreate, extJwtSignerPatch } from './schemas.js';

type Params = { id: string };

/** Registers the management signer routes. */
export function registerExtJwtSignerRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/external-jwt-signers`;
  const id = (req: { params: unknown }) => (req.params as Params).id;

  route('GET', url, 'admin', async (req) => {
    const page = await clients.auth.listExternalJwtSigners({ query: listQuery(req) });
    return { body: listBody(page.signers.map(renderSigner), page.meta) };
  });

  route('POST', url, 'admin', async (req) => {
    const r = await clients.auth.createExternalJwtSigner(toSignerFields(parseBody(extJwtSignerCreate, req.body)));
    return { status: 201, body: created(r.id, 'external-jwt-signers') };
  }, { body: extJwtSignerCreate, status: 201 });

  route('GET', `${url}/:id`, 'admin', async (req) => ({ body: ok(renderSigner(await clients.auth.getExternalJwtSigner({ id: id(req) }))) }));

  route('PUT', `${url}/:id`, 'admin', async (req) => {
    const b = parseBody(extJwtSignerCreate, req.body);
    await clients.auth.updateExternalJwtSigner({ id: id(req), fields: toSignerFields(b), updateMask: ALL_FIELDS });
    return { body: empty() };
  }, { body: extJwtSignerCreate });

  route('PATCH', `${url}/:id`, 'admin', async (req) => {
    const b = parseBody(extJwtSignerPatch, req.body);
    const mask = ALL_FIELDS.filter((f) => f in (req.body as Record<string, unknown>));
    await clients.auth.updateExternalJwtSigner({ id: id(req), fields: toSignerFields(b), updateMask: mask });
    return { body: empty() };
  }, { body: extJwtSignerPatch });

  route('DELETE', `${url}/:id`, 'admin', async (req) => {
    await clients.auth.deleteExternalJwtSigner({ id: id(req) });
    return { body: empty() };
  });
}

/** Registers the client API's signer list (no session needed: it is how an SDK finds its IdP). */
export function registerClientExtJwtSignerRoutes(route: Router, base: string, clients: Clients): void {
  route('GET', `${base}/external-jwt-signers`, 'public', async (req) => {
    const page = await clients.auth.listExternalJwtSigners({ query: listQuery(req), enabledOnly: true });
    return { body: listBody(page.signers.map(renderClientSigner), page.meta) };
  });
}

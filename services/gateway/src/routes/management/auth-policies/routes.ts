/**
 * Management `/auth-policies`: list, create, detail, replace, patch, delete.
 */
import { created, empty, ok } from '@edge/envelope';
import { parseBody } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { listBody, listQuery } from '../../shared/list.js';
import { patchedFields, renderAuthPolicy, toFields } from './map.js';
import { authPolicyCreate, authPolicyPatch } from './schemas.js';

type Params = { id: string };

/** Registers the auth policy routes under the management base path. */
export function registerAuthPolicyRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/auth-policies`;
  const id = (req: { params: unknown }) => (req.params as Params).id;

  route('GET', url, 'admin', async (req) => {
    const page = await clients.auth.listAuthPolicies({ query: listQuery(req) });
    return { body: listBody(page.authPolicies.map(renderAuthPolicy), page.meta) };
  });

  route('POST', url, 'admin', async (req) => {
    const created_ = await clients.auth.createAuthPolicy({ fields: toFields(parseBody(authPolicyCreate, req.body)) });
    return { status: 201, body: created(created_.id, 'auth-policies') };
  }, { body: authPolicyCreate, status: 201 });

  route('GET', `${url}/:id`, 'admin', async (req) => ({ body: ok(renderAuthPolicy(await clients.auth.getAuthPolicy({ id: id(req) }))) }));

  route('PUT', `${url}/:id`, 'admin', async (req) => {
    await clients.auth.updateAuthPolicy({ id: id(req), fields: toFields(parseBody(authPolicyCreate, req.body)) });
    return { body: empty() };
  }, { body: authPolicyCreate });

  route('PATCH', `${url}/:id`, 'admin', async (req) => {
    const body = parseBody(authPolicyPatch, req.body);
    const current = await clients.auth.getAuthPolicy({ id: id(req) });
    await clients.auth.updateAuthPolicy({ id: id(req), fields: patchedFields(current.fields!, body) });
    return { body: empty() };
  }, { body: authPolicyPatch });

  route('DELETE', `${url}/:id`, 'admin', async (req) => {
    await clients.auth.deleteAuthPolicy({ id: id(req) });
    return { body: empty() };
  });
}

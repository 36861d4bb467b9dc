/**
 * Management `/identity-types`: list and detail of the identity types the identity service owns.
 */
import { ok } from '@edge/envelope';
import { baseEntity, withFields } from '../../shared/entity.js';
import type { identity } from '@edge/proto';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { listBody, listQuery } from '../../shared/list.js';

/** `identityTypeDetail`. */
function renderIdentityType(t: identity.IdentityType__Output) {
  return withFields(baseEntity(t, 'identity-types'), {
    name: t.name,
  });
}

/** Registers the identity type routes under the management base path. */
export function registerIdentityTypeRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/identity-types`;

  route('GET', url, 'admin', async (req) => {
    const page = await clients.identity.listIdentityTypes({ query: listQuery(req) });
    return { body: listBody(page.identityTypes.map(renderIdentityType), page.meta) };
  });

  route('GET', `${url}/:id`, 'admin', async (req) => {
    const t = await clients.identity.getIdentityType({ id: (req.params as { id: string }).id });
    return { body: ok(renderIdentityType(t)) };
  });
}

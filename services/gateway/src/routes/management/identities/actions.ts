/**
 * Management actions on one identity beyond CRUD: removing its MFA.
 */
import { empty } from '@edge/envelope';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';

type Params = { id: string };

/** Registers the identity actions under the management base path. */
export function registerIdentityActionRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/identities/:id`;

  route('DELETE', `${url}/mfa`, 'admin', async (req) => {
    await clients.auth.removeIdentityMfa({ identityId: (req.params as Params).id });
    return { body: empty() };
  });
}

/**
 * Management actions on one identity beyond CRUD: removing its MFA, disabling and enabling it.
 */
import { empty } from '@edge/envelope';
import { parseBody, z } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';

type Params = { id: string };

/** `disableParams`: minutes, 0 meaning until enabled. */
const disableParams = z.object({ durationMinutes: z.number().int().min(0).max(1_000_000_000) });

/** Registers the identity actions under the management base path. */
export function registerIdentityActionRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/identities/:id`;

  route('DELETE', `${url}/mfa`, 'admin', async (req) => {
    await clients.auth.removeIdentityMfa({ identityId: (req.params as Params).id });
    return { body: empty() };
  });

  route('POST', `${url}/disable`, 'admin', async (req) => {
    const { durationMinutes } = parseBody(disableParams, req.body);
    await clients.identity.disableIdentity({ id: (req.params as Params).id, durationMinutes });
    return { body: empty() };
  });

  route('POST', `${url}/enable`, 'admin', async (req) => {
    await clients.identity.enableIdentity({ id: (req.params as Params).id });
    return { body: empty() };
  });
}

/**
 * Management `/revocations`: list, create (admin only), detail.
 */
import { created, ok } from '@edge/envelope';
import type { auth } from '@edge/proto';
import { parseBody, tags, z } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { listBody, listQuery } from '../../shared/list.js';
import { baseEntity, withFields } from '../../shared/entity.js';

/** `revocationCreate`. */
const revocationCreate = z.object({
  id: z.string().min(1).max(1000),
  type: z.enum(['JTI', 'IDENTITY', 'API_SESSION']),
  tags: tags.nullable().optional(),
});

/** `revocationDetail`. */
function renderRevocation(r: auth.Revocation__Output) {
  return withFields(baseEntity(r, 'revocations'), { type: r.type, expiresAt: r.expiresAt });
}

/** Registers the revocation routes under the management base path. */
export function registerRevocationRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/revocations`;

  route('GET', url, 'admin', async (req) => {
    const page = await clients.auth.listRevocations({ query: listQuery(req) });
    return { body: listBody(page.revocations.map(renderRevocation), page.meta) };
  });

  route('POST', url, 'admin', async (req) => {
    const b = parseBody(revocationCreate, req.body);
    await clients.auth.createRevocation({ id: b.id, type: b.type, tagsJson: JSON.stringify(b.tags ?? {}) });
    return { status: 201, body: created(b.id, 'revocations') };
  }, { body: revocationCreate, status: 201 });

  route('GET', `${url}/:id`, 'admin', async (req) => {
    const r = await clients.auth.getRevocation({ id: (req.params as { id: string }).id });
    return { body: ok(renderRevocation(r)) };
  });
}

/**
 * Management `/identities`: list, create, detail, replace, patch, delete.
 */
import { created, empty, ok } from '@edge/envelope';
import { parseBody } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { listBody, listQuery } from '../../shared/list.js';
import { renderIdentity } from '../../shared/render.js';
import { ALL_FIELDS, patchMask, toEnrollmentRequest, toFields } from './map.js';
import { enrollmentsByOwner } from '../../shared/enrollments.js';
import { identityCreate, identityPatch, identityUpdate } from './schemas.js';

type Params = { id: string };

/** Registers the identity routes under the management base path. */
export function registerIdentityRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/identities`;

  const detail = async (id: string) => {
    const [identity, summaries, enrollments] = await Promise.all([
      clients.identity.getIdentity({ id }),
      clients.auth.getIdentityAuthSummaries({ identityIds: [id] }),
      enrollmentsByOwner(clients, { identityIds: [id] }),
    ]);
    return renderIdentity(identity, summaries.summaries[0], enrollments.get(id));
  };

  route('GET', url, 'admin', async (req) => {
    const page = await clients.identity.listIdentities({ query: listQuery(req) });
    const identityIds = page.identities.map((i) => i.id);
    const [{ summaries }, enrollments] = await Promise.all([
      clients.auth.getIdentityAuthSummaries({ identityIds }),
      enrollmentsByOwner(clients, { identityIds }),
    ]);
    const byId = new Map(summaries.map((s) => [s.identityId, s]));
    const data = page.identities.map((i) => renderIdentity(i, byId.get(i.id), enrollments.get(i.id)));
    return { body: listBody(data, page.meta) };
  });

  route('POST', url, 'admin', async (req) => {
    const body = parseBody(identityCreate, req.body);
    // The identity service creates the enrollments asked for with the identity, or neither.
    const { id } = await clients.identity.createIdentity({ fields: toFields(body), enrollment: toEnrollmentRequest(body) });
    return { status: 201, body: created(id, 'identities') };
  }, { body: identityCreate, status: 201 });

  route('GET', `${url}/:id`, 'admin', async (req) => ({ body: ok(await detail((req.params as Params).id)) }));

  route('PUT', `${url}/:id`, 'admin', async (req) => {
    const body = parseBody(identityUpdate, req.body);
    await clients.identity.updateIdentity({ id: (req.params as Params).id, fields: toFields(body), updateMask: ALL_FIELDS });
    return { body: empty() };
  }, { body: identityUpdate });

  route('PATCH', `${url}/:id`, 'admin', async (req) => {
    const body = parseBody(identityPatch, req.body);
    const mask = patchMask(req.body as Record<string, unknown>);
    await clients.identity.updateIdentity({ id: (req.params as Params).id, fields: toFields(body), updateMask: mask });
    return { body: empty() };
  }, { body: identityPatch });

  route('DELETE', `${url}/:id`, 'admin', async (req) => {
    await clients.identity.deleteIdentity({ id: (req.params as Params).id });
    return { body: empty() };
  });
}

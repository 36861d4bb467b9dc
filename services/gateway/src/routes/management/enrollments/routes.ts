/**
 * Management `/enrollments`: list (ZitiQL filters), create, detail, delete, refresh; and
 * `/identities/{id}/enrollments`.
 */
import { created, empty, ok } from '@edge/envelope';
import { parseBody } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import type { Principal } from '../../../http/session-cache.js';
import { renderEnrollments } from '../../shared/enrollments.js';
import { refuseUnlessAdminFor, visibleEnrollments } from '../../shared/non-admin.js';
import { listBody, listQuery } from '../../shared/list.js';
import { enrollmentCreate, enrollmentRefresh } from './schemas.js';

type Params = { id: string };

/** Registers the enrollment routes under the management base path. */
export function registerEnrollmentRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/enrollments`;

  /** The enrollment, unless a non-admin asks for one of an admin identity. */
  const enrollmentFor = async (id: string, principal: Principal | undefined) => {
    const e = await clients.pki.getEnrollment({ id });
    await refuseUnlessAdminFor(clients, principal, e.identityId, 'non-admins may not manage enrollments for admin identities');
    return e;
  };

  route('GET', url, 'admin', async (req, principal) => {
    const page = await clients.pki.listEnrollments({ query: listQuery(req) });
    return { body: listBody(await renderEnrollments(clients, await visibleEnrollments(clients, principal, page.enrollments)), page.meta) };
  });

  route('POST', url, 'admin', async (req, principal) => {
    const body = parseBody(enrollmentCreate, req.body);
    await refuseUnlessAdminFor(clients, principal, body.identityId, 'non-admins may not manage enrollments for admin identities');
    const e = await clients.pki.createEnrollment({
      method: body.method, identityId: body.identityId, caId: body.caId ?? undefined, username: body.username ?? undefined, expiresAt: body.expiresAt,
    });
    return { status: 201, body: created(e.id, 'enrollments') };
  }, { body: enrollmentCreate, status: 201 });

  route('GET', `${url}/:id`, 'admin', async (req, principal) => {
    const e = await enrollmentFor((req.params as Params).id, principal);
    return { body: ok((await renderEnrollments(clients, [e]))[0]) };
  });

  route('DELETE', `${url}/:id`, 'admin', async (req, principal) => {
    await enrollmentFor((req.params as Params).id, principal);
    await clients.pki.deleteEnrollment({ id: (req.params as Params).id });
    return { body: empty() };
  });

  route('POST', `${url}/:id/refresh`, 'admin', async (req, principal) => {
    const { expiresAt } = parseBody(enrollmentRefresh, req.body);
    await enrollmentFor((req.params as Params).id, principal);
    const e = await clients.pki.refreshEnrollment({ id: (req.params as Params).id, expiresAt });
    return { body: created(e.id, 'enrollments') };
  }, { body: enrollmentRefresh });

  route('GET', `${base}/identities/:id/enrollments`, 'admin', async (req, principal) => {
    const id = (req.params as Params).id;
    await clients.identity.getIdentity({ id });
    const { enrollments } = await clients.pki.getEnrollmentsOf({ identityIds: [id], edgeRouterIds: [], transitRouterIds: [] });
    const data = await renderEnrollments(clients, await visibleEnrollments(clients, principal, enrollments));
    return { body: listBody(data, { totalCount: data.length, limit: data.length, offset: 0, filterableFields: [] }) };
  });
}

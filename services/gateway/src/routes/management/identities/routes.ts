/**
 * Management `/identities`: list, create, detail, replace, patch, delete.
 */
import { created, empty, ok } from '@edge/envelope';
import { parseBody } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import { JSON_CONTENT_TYPE, jsonBytes, type Router } from '../../../http/route.js';
import { listBody, listQuery } from '../../shared/list.js';
import { renderIdentity } from '../../shared/render.js';
import { ALL_FIELDS, patchMask, toFields } from './map.js';
import { uncachedIdentityListing, type IdentityListing } from '../../../http/identity-listing.js';
import { uncachedIdentities, type IdentitySource } from '../../../http/identity-cache.js';
import { checkAuthPolicy } from './auth-policy.js';
import { createIdentityWithEnrollments } from './enrollments.js';
import { nonAdminNotAllowed, refuseUnlessAdminFor } from '../../shared/non-admin.js';
import type { Principal } from '../../../http/session-cache.js';
import { identityCreate, identityPatch, identityUpdate } from './schemas.js';

type Params = { id: string };

/** Fields only admins may set (identity_router.go Patch: permissions, isAdmin, isDefaultAdmin). */
const ADMIN_FIELDS = ['permissions', 'isAdmin', 'isDefaultAdmin'];

/**
 * A non-admin (an identity with the `identity` permission) may not create admins or identities with
 * permissions, replace identities, or change or delete admins: it could make itself one.
 */
function refuseEscalation(principal: Principal | undefined, body: { isAdmin?: boolean | null; permissions?: string[] | null }): void {
  if (principal?.isAdmin) return;
  if (body.isAdmin) throw nonAdminNotAllowed('non-admins may not create admin users');
  if ((body.permissions ?? []).length > 0) throw nonAdminNotAllowed('non-admins may not create users with permissions');
}

/**
 * Registers the identity routes under the management base path; `listing` keeps what the list and
 * detail show between requests (http/identity-listing.ts), and the detail's identity comes from
 * `identities` (the gateway's cache of identities by id, http/identity-cache.ts).
 */
export function registerIdentityRoutes(
  route: Router, base: string, clients: Clients, listing: IdentityListing = uncachedIdentityListing(clients), identities: IdentitySource = uncachedIdentities(clients),
): void {
  const url = `${base}/identities`;

  // An admin's outstanding enrollment token enrolls as that admin: non-admins do not see it.
  const enrollmentsShown = (principal: Principal | undefined, isAdmin: boolean) => principal?.isAdmin || !isAdmin;

  const detail = async (id: string, principal: Principal | undefined) => {
    const [identity, summaries, enrollments] = await Promise.all([
      identities.get(id),
      listing.summaries([id]),
      listing.enrollments([id]),
    ]);
    return renderIdentity(identity, summaries.get(id), enrollmentsShown(principal, identity.isAdmin) ? enrollments.get(id) : undefined);
  };

  route('GET', url, 'admin', async (req, principal) => {
    // Rendered once for administrators and once for others (who do not see admins' enrollments).
    const variant = principal?.isAdmin ? 'admin' : 'other';
    const body = await listing.rendered(listQuery(req), variant, (page, summaries, enrollments) => jsonBytes(listBody(
      page.identities.map((i) => renderIdentity(i, summaries.get(i.id), enrollmentsShown(principal, i.isAdmin) ? enrollments.get(i.id) : undefined)),
      page.meta,
    )));
    return { body, contentType: JSON_CONTENT_TYPE };
  });

  route('POST', url, 'admin', async (req, principal) => {
    const body = parseBody(identityCreate, req.body);
    refuseEscalation(principal, body);
    await checkAuthPolicy(clients, body.authPolicyId);
    const id = await createIdentityWithEnrollments(clients, toFields(body), body.enrollment);
    return { status: 201, body: created(id, 'identities') };
  }, { body: identityCreate, status: 201 });

  route('GET', `${url}/:id`, 'admin', async (req, principal) => ({ body: ok(await detail((req.params as Params).id, principal)) }));

  route('PUT', `${url}/:id`, 'admin', async (req, principal) => {
    const body = parseBody(identityUpdate, req.body);
    if (!principal?.isAdmin) throw nonAdminNotAllowed('non-admins may not use the PUT method, use PATCH instead');
    await checkAuthPolicy(clients, body.authPolicyId);
    await clients.identity.updateIdentity({ id: (req.params as Params).id, fields: toFields(body), updateMask: ALL_FIELDS });
    return { body: empty() };
  }, { body: identityUpdate });

  route('PATCH', `${url}/:id`, 'admin', async (req, principal) => {
    const body = parseBody(identityPatch, req.body);
    const mask = patchMask(req.body as Record<string, unknown>);
    await refuseUnlessAdminFor(clients, principal, (req.params as Params).id, 'non-admins may not modify admin identities');
    const field = principal?.isAdmin ? undefined : ADMIN_FIELDS.find((f) => f in (req.body as Record<string, unknown>));
    if (field) throw nonAdminNotAllowed(`non-admins may not modify the identity field '${field}'`);
    await checkAuthPolicy(clients, body.authPolicyId);
    await clients.identity.updateIdentity({ id: (req.params as Params).id, fields: toFields(body), updateMask: mask });
    return { body: empty() };
  }, { body: identityPatch });

  route('DELETE', `${url}/:id`, 'admin', async (req, principal) => {
    await refuseUnlessAdminFor(clients, principal, (req.params as Params).id, 'non-admin may not delete admin identities');
    await clients.identity.deleteIdentity({ id: (req.params as Params).id });
    return { body: empty() };
  });
}

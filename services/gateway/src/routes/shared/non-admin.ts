/**
 * What only admins may do to admin identities, whatever permissions the caller holds (OpenZiti's
 * nonAdminNotAllowedError in controller/internal/routes/identity_router.go and
 * enrollment_router.go): otherwise an identity holding the `identity` or `enrollment` permission
 * could make itself, or enroll as, an admin.
 */
import { ZitiError, isZitiError } from '@edge/errors';
import type { Clients } from '../../clients.js';
import type { Principal } from '../../http/session-cache.js';

/** 401 UNAUTHORIZED saying what a non-admin may not do. */
export function nonAdminNotAllowed(why: string): ZitiError {
  return new ZitiError('UNAUTHORIZED', { causeMessage: why });
}

/** Whether the identity is an admin (false when it does not exist: the call itself answers that). */
async function isAdminIdentity(clients: Clients, id: string): Promise<boolean> {
  try {
    return (await clients.identity.getIdentity({ id })).isAdmin;
  } catch (err) {
    if (isZitiError(err) && err.code === 'NOT_FOUND') return false;
    throw err;
  }
}

/** Refuses a non-admin acting on an admin identity; admins pass without a look-up. */
export async function refuseUnlessAdminFor(clients: Clients, principal: Principal | undefined, identityId: string | undefined, why: string): Promise<void> {
  if (principal?.isAdmin || !identityId) return;
  if (await isAdminIdentity(clients, identityId)) throw nonAdminNotAllowed(why);
}

/**
 * What a non-admin may see of a list of enrollments: not those of admin identities, whose token
 * enrolls as that admin (enrollment_router.go List). Admins see all.
 */
export async function visibleEnrollments<E extends { identityId?: string }>(clients: Clients, principal: Principal | undefined, enrollments: E[]): Promise<E[]> {
  if (principal?.isAdmin) return enrollments;
  const ids = [...new Set(enrollments.map((e) => e.identityId).filter((id): id is string => !!id))];
  if (ids.length === 0) return enrollments;
  const admins = new Set((await clients.identity.getIdentities({ ids })).identities.filter((i) => i.isAdmin).map((i) => i.id));
  return enrollments.filter((e) => !e.identityId || !admins.has(e.identityId));
}

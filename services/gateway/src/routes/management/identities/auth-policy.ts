/**
 * An identity's `authPolicyId` must name an auth policy. The auth service owns auth policies and
 * the identity service identities; the gateway asks the auth service before it writes the
 * identity, so the identity service never calls the auth service (which reads identities from
 * their events): no call cycle between the two.
 */
import { ZitiError, isZitiError } from '@edge/errors';
import type { Clients } from '../../../clients.js';

const DEFAULT_AUTH_POLICY_ID = 'default';

/** Throws REFERENCED_ENTITY_NOT_FOUND when `authPolicyId` (absent or `default`: fine) names no auth policy. */
export async function checkAuthPolicy(clients: Clients, authPolicyId: string | null | undefined): Promise<void> {
  if (!authPolicyId || authPolicyId === DEFAULT_AUTH_POLICY_ID) return;
  try {
    await clients.auth.getAuthPolicy({ id: authPolicyId });
  } catch (err) {
    if (!isZitiError(err) || err.code !== 'NOT_FOUND') throw err;
    throw new ZitiError('REFERENCED_ENTITY_NOT_FOUND', {
      cause: { field: 'authPolicyId', reason: 'auth policy not found', value: authPolicyId },
      causeMessage: `auth policy ${authPolicyId} not found`,
    });
  }
}

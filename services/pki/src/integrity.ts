/**
 * The pki service's part of a data integrity check: enrollments of identities the identity
 * service no longer knows. Fixing deletes them, as the identity-deleted event would have.
 */
import type { EnrollmentStore } from './store/enrollment.js';
import type { EnrollmentPeers } from './peers/index.js';

/** Checks (and optionally repairs) the enrollments of missing identities. */
export function createIntegrityCheck(store: Pick<EnrollmentStore, 'owners' | 'deleteOf'>, peers: Pick<EnrollmentPeers, 'existingIdentities'>) {
  return async function check(fix: boolean): Promise<Array<{ description: string; fixed: boolean }>> {
    const { identityIds } = await store.owners();
    const existing = await peers.existingIdentities(identityIds);
    const issues = [];
    for (const id of identityIds.filter((i) => !existing.has(i))) {
      if (fix) await store.deleteOf({ identityId: id });
      issues.push({ description: `pki: enrollments of identity ${id}, which does not exist`, fixed: fix });
    }
    return issues;
  };
}

/**
 * The auth service's part of a data integrity check: authenticators, API sessions and MFA of
 * identities the identity service no longer knows (an identity-deleted event that was lost).
 * Fixing removes them the way the event would have.
 */
import type { ApiSessions } from './api-sessions.js';
import type { Identities } from './peers/identity.js';
import type { AuthStore } from './store/api-session.js';

const BATCH = 500;

/**
 * One step of the periodic reconciliation: the next page of identities the auth schema refers
 * to; what a deleted identity left goes as its deleted event would have taken it, and the API
 * sessions of a disabled identity end as its disabled event would have ended them. Returns where
 * the next step starts, or undefined after the last page.
 */
export function createIdentityReconcile(
  store: Pick<AuthStore, 'referencedIdentityIdsAfter' | 'identitiesWithApiSessions'>, identities: Pick<Identities, 'findMany'>,
  apiSessions: Pick<ApiSessions, 'endForIdentity' | 'endSessionsOf'>,
) {
  return async function step(cursor: string | undefined): Promise<string | undefined> {
    const ids = await store.referencedIdentityIdsAfter(cursor ?? '', BATCH);
    const known = await identities.findMany(ids);
    for (const id of ids.filter((i) => !known.has(i))) await apiSessions.endForIdentity(id);
    const disabled = ids.filter((i) => known.get(i)?.disabled);
    for (const id of await store.identitiesWithApiSessions(disabled)) await apiSessions.endSessionsOf(id);
    return ids.length < BATCH ? undefined : ids.at(-1);
  };
}

/** Checks (and optionally repairs) what auth keeps for missing identities. */
export function createIntegrityCheck(store: Pick<AuthStore, 'referencedIdentityIds'>, identities: Pick<Identities, 'findMany'>, apiSessions: Pick<ApiSessions, 'endForIdentity'>) {
  return async function check(fix: boolean): Promise<Array<{ description: string; fixed: boolean }>> {
    const ids = await store.referencedIdentityIds();
    const missing: string[] = [];
    for (let i = 0; i < ids.length; i += BATCH) {
      const batch = ids.slice(i, i + BATCH);
      const known = await identities.findMany(batch);
      missing.push(...batch.filter((id) => !known.has(id)));
    }
    const issues = [];
    for (const id of missing) {
      if (fix) await apiSessions.endForIdentity(id);
      issues.push({ description: `auth: authenticators, API sessions or MFA of identity ${id}, which does not exist`, fixed: fix });
    }
    return issues;
  };
}

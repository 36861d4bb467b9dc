/**
 * Revocations (as OpenZiti's /revocations): a JWT id no longer accepted, every API session of
 * an identity ended, or one API session ended. The record lives until no token it revokes
 * could still be valid.
 */
import type { Kysely } from 'kysely';
import { fieldError, notFound } from '@edge/errors';
import { entityFields, field, type FieldMap, type ListPlan } from '@edge/zitiql';
import type { ApiSessions } from './api-sessions.js';
import type { AuthDb, RevocationType } from './store/db.js';
import { createRevocationStore, type Revocation } from './store/revocation.js';

export type { RevocationType };
const TYPES = new Set<RevocationType>(['JTI', 'IDENTITY', 'API_SESSION']);

/** How long a revocation is kept: longer than any token this controller accepts lives. */
const KEEP_MS = 24 * 60 * 60 * 1000;

/** What a filter on `/revocations` may read. */
export const REVOCATION_FIELDS: FieldMap = { ...entityFields(), type: field.string('type'), expiresAt: field.datetime('expires_at') };

export type { Revocation };

/** Builds the revocation operations. */
export function createRevocations(db: Kysely<AuthDb>, apiSessions: Pick<ApiSessions, 'delete' | 'endSessionsOf'>) {
  const store = createRevocationStore(db);
  return {
    /** Records the revocation and ends what it names at once. */
    async create(id: string, type: string, tags: Record<string, unknown>): Promise<void> {
      if (!id) throw fieldError('id', 'must not be empty', id);
      if (!TYPES.has(type as RevocationType)) throw fieldError('type', 'must be JTI, IDENTITY or API_SESSION', type);
      await store.put(id, type as RevocationType, tags, new Date(Date.now() + KEEP_MS));
      if (type === 'IDENTITY') await apiSessions.endSessionsOf(id);
      if (type === 'API_SESSION') await apiSessions.delete(id).catch(() => undefined);
    },

    async get(id: string): Promise<Revocation> {
      const row = await store.get(id);
      if (!row) throw notFound('revocation', id);
      return row;
    },

    list: (plan: ListPlan) => store.list(plan),

    /** Whether the identity's tokens issued at `issuedAt` were revoked after it. */
    async isIdentityRevokedSince(identityId: string, issuedAt: Date | undefined): Promise<boolean> {
      const since = await store.liveSince(identityId, 'IDENTITY');
      return since !== undefined && (issuedAt === undefined || issuedAt <= since);
    },

    /** Whether a JWT id is revoked (and the revocation not yet expired). */
    async isJtiRevoked(jti: string | undefined): Promise<boolean> {
      return jti ? (await store.liveSince(jti, 'JTI')) !== undefined : false;
    },
  };
}

export type Revocations = ReturnType<typeof createRevocations>;

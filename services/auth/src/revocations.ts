/**
 * Revocations (as OpenZiti's /revocations): a JWT id no longer accepted, every API session of
 * an identity ended, or one API session ended. The record lives until no token it revokes
 * could still be valid.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import { fieldError, notFound } from '@edge/errors';
import { entityFields, field, runList, type FieldMap, type ListPlan } from '@edge/zitiql';
import type { ApiSessions } from './api-sessions.js';
import type { AuthDb, RevocationType, RevocationsTable } from './store/db.js';

export type { RevocationType };
const TYPES = new Set<RevocationType>(['JTI', 'IDENTITY', 'API_SESSION']);

/** How long a revocation is kept: longer than any token this controller accepts lives. */
const KEEP_MS = 24 * 60 * 60 * 1000;

/** What a filter on `/revocations` may read. */
export const REVOCATION_FIELDS: FieldMap = { ...entityFields(), type: field.string('type'), expiresAt: field.datetime('expires_at') };

export type Revocation = Selectable<RevocationsTable>;

/** Builds the revocation operations. */
export function createRevocations(db: Kysely<AuthDb>, apiSessions: Pick<ApiSessions, 'delete' | 'endSessionsOf'>) {
  return {
    /** Records the revocation and ends what it names at once. */
    async create(id: string, type: string, tags: Record<string, unknown>): Promise<void> {
      if (!id) throw fieldError('id', 'must not be empty', id);
      if (!TYPES.has(type as RevocationType)) throw fieldError('type', 'must be JTI, IDENTITY or API_SESSION', type);
      const expiresAt = new Date(Date.now() + KEEP_MS);
      await db.insertInto('revocations').values({ id, type: type as RevocationType, tags: JSON.stringify(tags), expires_at: expiresAt })
        .onConflict((oc) => oc.column('id').doUpdateSet({ expires_at: expiresAt, updated_at: sql<Date>`date_trunc('milliseconds', now())` }))
        .execute();
      if (type === 'IDENTITY') await apiSessions.endSessionsOf(id);
      if (type === 'API_SESSION') await apiSessions.delete(id).catch(() => undefined);
    },

    async get(id: string): Promise<Revocation> {
      const row = await db.selectFrom('revocations').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) throw notFound('revocation', id);
      return row;
    },

    async list(plan: ListPlan): Promise<{ items: Revocation[]; total: number }> {
      const { rows, total } = await runList(db.selectFrom('revocations'), plan, (qb) => qb.selectAll());
      return { items: rows as Revocation[], total };
    },

    /** Whether the identity's tokens issued at `issuedAt` were revoked after it. */
    async isIdentityRevokedSince(identityId: string, issuedAt: Date | undefined): Promise<boolean> {
      const row = await db.selectFrom('revocations').select('updated_at').where('id', '=', identityId).where('type', '=', 'IDENTITY')
        .where('expires_at', '>', new Date()).executeTakeFirst();
      return row !== undefined && (issuedAt === undefined || issuedAt <= row.updated_at);
    },

    /** Whether a JWT id is revoked (and the revocation not yet expired). */
    async isJtiRevoked(jti: string | undefined): Promise<boolean> {
      if (!jti) return false;
      const row = await db.selectFrom('revocations').select('id').where('id', '=', jti).where('type', '=', 'JTI').where('expires_at', '>', new Date()).executeTakeFirst();
      return row !== undefined;
    },
  };
}

export type Revocations = ReturnType<typeof createRevocations>;

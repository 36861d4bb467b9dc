/**
 * The `revocations` table: JWT ids, identities and API sessions revoked, each kept until it
 * expires (revocations.ts decides how long and what a revocation ends).
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import { runList, type ListPlan } from '@edge/zitiql';
import type { AuthDb, RevocationType, RevocationsTable } from './db.js';

export type Revocation = Selectable<RevocationsTable>;

export function createRevocationStore(db: Kysely<AuthDb>) {
  return {
    /** Records a revocation, or keeps an existing one of the same id until `expiresAt`. */
    async put(id: string, type: RevocationType, tags: Record<string, unknown>, expiresAt: Date): Promise<void> {
      await db.insertInto('revocations').values({ id, type, tags: JSON.stringify(tags), expires_at: expiresAt })
        .onConflict((oc) => oc.column('id').doUpdateSet({ expires_at: expiresAt, updated_at: sql<Date>`date_trunc('milliseconds', now())` }))
        .execute();
    },

    async get(id: string): Promise<Revocation | undefined> {
      return db.selectFrom('revocations').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async list(plan: ListPlan): Promise<{ items: Revocation[]; total: number }> {
      const { rows, total } = await runList(db.selectFrom('revocations'), plan, (qb) => qb.selectAll());
      return { items: rows as Revocation[], total };
    },

    /** When the live revocation of `id` of `type` was last recorded, if there is one. */
    async liveSince(id: string, type: RevocationType): Promise<Date | undefined> {
      const row = await db.selectFrom('revocations').select('updated_at').where('id', '=', id).where('type', '=', type)
        .where('expires_at', '>', new Date()).executeTakeFirst();
      return row?.updated_at;
    },
  };
}

/**
 * Posture data queries: one row per API session, merged as responses arrive.
 */
import type { Kysely } from 'kysely';
import type { PostureData } from '../domain/posture.js';
import type { SessionDb } from './db.js';

/** Creates the posture data store over the session schema. */
export function createPostureStore(db: Kysely<SessionDb>) {
  return {
    async get(apiSessionId: string): Promise<PostureData> {
      const row = await db.selectFrom('posture_data').select('data').where('api_session_id', '=', apiSessionId).executeTakeFirst();
      return (row?.data as PostureData | undefined) ?? {};
    },

    /** What each of these API sessions reported (none: absent), in one query. */
    async getMany(apiSessionIds: readonly string[]): Promise<Map<string, PostureData>> {
      if (apiSessionIds.length === 0) return new Map();
      const rows = await db.selectFrom('posture_data').select(['api_session_id', 'data']).where('api_session_id', 'in', [...new Set(apiSessionIds)]).execute();
      return new Map(rows.map((r) => [r.api_session_id, (r.data as PostureData | undefined) ?? {}]));
    },

    /** Applies `update` to the session's data in one transaction, so concurrent reports do not clobber each other. */
    async update(apiSessionId: string, identityId: string, update: (data: PostureData) => PostureData): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('posture_data').values({ api_session_id: apiSessionId, identity_id: identityId, data: '{}', updated_at: new Date() })
          .onConflict((oc) => oc.column('api_session_id').doNothing()).execute();
        const row = await trx.selectFrom('posture_data').select('data').where('api_session_id', '=', apiSessionId).forUpdate().executeTakeFirstOrThrow();
        const next = update((row.data as PostureData) ?? {});
        await trx.updateTable('posture_data').set({ data: JSON.stringify(next), updated_at: new Date() }).where('api_session_id', '=', apiSessionId).execute();
      });
    },

    /** What every API session of the identity has reported. */
    async ofIdentity(identityId: string): Promise<Array<{ apiSessionId: string; data: PostureData; updatedAt: Date }>> {
      const rows = await db.selectFrom('posture_data').selectAll().where('identity_id', '=', identityId).orderBy('updated_at').execute();
      return rows.map((r) => ({ apiSessionId: r.api_session_id, data: (r.data as PostureData) ?? {}, updatedAt: r.updated_at }));
    },

    async deleteOf(apiSessionId: string): Promise<void> {
      await db.deleteFrom('posture_data').where('api_session_id', '=', apiSessionId).execute();
    },
  };
}

export type PostureStore = ReturnType<typeof createPostureStore>;

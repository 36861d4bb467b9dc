/**
 * Authenticator queries for their management: list, read, create, change, delete.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import { inChunks, isUniqueViolation } from '@edge/db';
import { fieldError, ZitiError } from '@edge/errors';
import { entityFields, field, runList, type FieldMap, type ListPlan } from '@edge/zitiql';
import type { ApiSessionRef } from '../domain/api-session.js';
import { methodMax, type Authenticator } from '../domain/authenticator.js';
import type { AuthEvents } from '../events.js';
import { owned, toAuthenticator } from './api-session.js';
import type { AuthDb, AuthenticatorsTable } from './db.js';

/** What a filter on `/authenticators` may read. */
export const AUTHENTICATOR_FIELDS: FieldMap = {
  ...entityFields(),
  identity: field.string('identity_id'),
  identityId: field.string('identity_id'),
  method: field.string('method'),
  username: field.string('username', { nullable: true }),
  fingerprint: field.string('fingerprint', { nullable: true }),
};

/** A new authenticator: updb with username and hash, or cert with fingerprint and PEM. */
export type NewAuthenticator = Omit<Authenticator, 'createdAt' | 'updatedAt' | 'extendRequest'>;

function toRow(a: NewAuthenticator) {
  return {
    id: a.id, identity_id: a.identityId, method: a.method, username: a.username ?? null, password_hash: a.passwordHash ?? null,
    fingerprint: a.fingerprint ?? null, cert_pem: a.certPem ?? null, tags: JSON.stringify(a.tags) as never,
    is_issued_by_network: a.method === 'cert' ? a.isIssuedByNetwork ?? false : null,
  };
}

/** Turns a unique violation into the error OpenZiti answers for it. */
export function taken(err: unknown, a: { username?: string; fingerprint?: string }): never {
  const v = isUniqueViolation(err);
  if (v?.constraint?.includes('identity_method')) throw methodMax();
  if (v?.constraint?.includes('username')) throw fieldError('username', 'is already in use', a.username);
  if (v?.constraint?.includes('fingerprint')) {
    throw new ZitiError('CERT_IN_USE', { cause: { field: 'certPem', reason: 'the certificate is already used by an authenticator', value: a.fingerprint } });
  }
  throw err;
}

/**
 * Many authenticators in a few statements (bulk import, which ends no session). Announces
 * nothing: the import runs while the controller is stopped, and the identities it loads have no
 * API session nor anything cached of them yet.
 */
export async function insertAuthenticatorsInBulk(db: Kysely<AuthDb>, list: readonly NewAuthenticator[]): Promise<void> {
  await inChunks(list, (chunk) => db.insertInto('authenticators').values(chunk.map(toRow)).execute().catch((err: unknown) => taken(err, chunk[0]!)));
}

/**
 * Creates the authenticator queries. Creating, renaming, deleting an authenticator and changing
 * its current certificate announce it in the same transaction (deleting also ends its API
 * sessions); what no one outside reads (password hash, tags, a pending certificate, extension
 * flags, the issued-by-network flag) changes silently.
 */
export function createAuthenticatorStore(db: Kysely<AuthDb>, events: AuthEvents) {
  return {
    async list(plan: ListPlan, ownerIdentityId?: string): Promise<{ items: Authenticator[]; total: number }> {
      const from = ownerIdentityId ? db.selectFrom('authenticators').where('identity_id', '=', ownerIdentityId) : db.selectFrom('authenticators');
      const { rows, total } = await runList(from, plan, (qb) => qb.selectAll());
      return { items: (rows as Selectable<AuthenticatorsTable>[]).map(toAuthenticator), total };
    },

    /** Whether the identity has an authenticator of this method. */
    async hasMethod(identityId: string, method: string): Promise<boolean> {
      const row = await db.selectFrom('authenticators').select('id').where('identity_id', '=', identityId).where('method', '=', method as Authenticator['method']).executeTakeFirst();
      return row !== undefined;
    },

    /** Every cert authenticator's id and certificate (a deleted CA takes those it issued). */
    async listCertificates(): Promise<{ id: string; certPem: string }[]> {
      const rows = await db.selectFrom('authenticators').select(['id', 'cert_pem']).where('method', '=', 'cert').where('cert_pem', 'is not', null).execute();
      return rows.map((r) => ({ id: r.id, certPem: r.cert_pem! }));
    },

    /** Cert authenticators not yet known to be issued by the controller or not (rows older than the flag). */
    async undeterminedCertificates(limit: number): Promise<{ id: string; certPem: string }[]> {
      const rows = await db.selectFrom('authenticators').select(['id', 'cert_pem']).where('method', '=', 'cert')
        .where('is_issued_by_network', 'is', null).where('cert_pem', 'is not', null).orderBy('id').limit(limit).execute();
      return rows.map((r) => ({ id: r.id, certPem: r.cert_pem! }));
    },

    /** Records whether the controller issued an authenticator's certificate. */
    async setIssuedByNetwork(id: string, issued: boolean): Promise<void> {
      await db.updateTable('authenticators').set({ is_issued_by_network: issued }).where('id', '=', id).execute();
    },

    async find(id: string): Promise<Authenticator | undefined> {
      const row = await db.selectFrom('authenticators').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toAuthenticator(row);
    },

    async insert(a: NewAuthenticator): Promise<void> {
      await events.transaction(async (trx) => {
        await trx.insertInto('authenticators').values(toRow(a)).execute();
        await events.authenticatorsChanged(trx, 'created', [a]);
      }).catch((err: unknown) => taken(err, a));
    },

    /** Changes username, password or tags; a new username is announced. */
    async update(id: string, change: { username?: string; passwordHash?: string; tags?: Record<string, unknown> }): Promise<void> {
      await events.transaction(async (trx) => {
        const rows = await trx.updateTable('authenticators').set({
          ...(change.username !== undefined ? { username: change.username } : {}),
          ...(change.passwordHash !== undefined ? { password_hash: change.passwordHash, failed_attempts: 0 } : {}),
          ...(change.tags !== undefined ? { tags: JSON.stringify(change.tags) as never } : {}),
          updated_at: sql<Date>`now()`,
        }).where('id', '=', id).returning(['id', 'identity_id']).execute();
        if (change.username !== undefined) await events.authenticatorsChanged(trx, 'updated', owned(rows));
      }).catch((err: unknown) => taken(err, change));
    },

    async requestExtend(id: string, rollKeys: boolean): Promise<void> {
      await db.updateTable('authenticators')
        .set({ is_extend_requested: true, is_key_roll_requested: rollKeys, extend_requested_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
        .where('id', '=', id).execute();
    },

    /** The pending certificate of an extension, or undefined when none is pending. */
    async pendingCertificate(id: string): Promise<{ pem: string; fingerprint: string } | undefined> {
      const row = await db.selectFrom('authenticators').select(['unverified_cert_pem', 'unverified_fingerprint']).where('id', '=', id).executeTakeFirst();
      return row?.unverified_cert_pem && row.unverified_fingerprint ? { pem: row.unverified_cert_pem, fingerprint: row.unverified_fingerprint } : undefined;
    },

    /** Keeps a new certificate pending beside the current one (replacing an earlier pending one). */
    async setPendingCertificate(id: string, pem: string, fingerprint: string): Promise<void> {
      await db.updateTable('authenticators').set({ unverified_cert_pem: pem, unverified_fingerprint: fingerprint, updated_at: sql<Date>`now()` })
        .where('id', '=', id).execute();
    },

    /**
     * Makes the pending certificate the current one, if it is still `fingerprint`, and clears an
     * extension request; false when something else changed it meanwhile.
     */
    async promotePendingCertificate(id: string, fingerprint: string): Promise<boolean> {
      return events.transaction(async (trx) => {
        const rows = await trx.updateTable('authenticators').set((eb) => ({
          cert_pem: eb.ref('unverified_cert_pem'), fingerprint: eb.ref('unverified_fingerprint'), unverified_cert_pem: null, unverified_fingerprint: null,
          // the pki service extends only certificates its CA issued, with that CA
          is_issued_by_network: true,
          is_extend_requested: false, is_key_roll_requested: false, extend_requested_at: null, updated_at: sql<Date>`now()`,
        })).where('id', '=', id).where('unverified_fingerprint', '=', fingerprint).returning(['id', 'identity_id']).execute();
        await events.authenticatorsChanged(trx, 'updated', owned(rows));
        return rows.length > 0;
      }).catch((err: unknown) => taken(err, { fingerprint }));
    },

    /**
     * Deletes authenticators and, in the same transaction, the API sessions opened with them
     * (as controller/db/authenticator_store.go DeleteById), with the deleted events of both; how
     * many authenticators went, and the sessions this call ended.
     */
    async deleteWithSessions(ids: readonly string[]): Promise<{ removed: number; sessions: ApiSessionRef[] }> {
      if (ids.length === 0) return { removed: 0, sessions: [] };
      return events.transaction(async (trx) => {
        const removed = await trx.deleteFrom('authenticators').where('id', 'in', ids).returning(['id', 'identity_id']).execute();
        await events.authenticatorsChanged(trx, 'deleted', owned(removed));
        const sessions = owned(await trx.deleteFrom('api_sessions').where('authenticator_id', 'in', ids).returning(['id', 'identity_id']).execute());
        await events.apiSessionsDeleted(trx, sessions);
        return { removed: removed.length, sessions };
      });
    },
  };
}

export type AuthenticatorStore = ReturnType<typeof createAuthenticatorStore>;

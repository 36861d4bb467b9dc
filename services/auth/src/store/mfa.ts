/**
 * The MFA queries of the auth service: enrollments, recovery code hashes, replay and attempt
 * counters, TOTP tokens, and the installation's KEK salt.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { ApiSessionRef } from '../domain/api-session.js';
import type { Mfa } from '../domain/mfa.js';
import type { AuthEvents } from '../events.js';
import type { AuthDb, MfasTable } from './db.js';

/** A new enrollment with the hashes of its recovery codes. */
export interface NewMfa {
  id: string;
  identityId: string;
  secretSealed: string;
  recoveryCodesSealed: string;
  recoveryCodeHashes: string[];
}

function toMfa(row: Selectable<MfasTable>): Mfa {
  return {
    id: row.id,
    identityId: row.identity_id,
    isVerified: row.is_verified,
    secretSealed: row.secret_sealed,
    recoveryCodesSealed: row.recovery_codes_sealed,
    lastTotpStep: row.last_totp_step === null ? undefined : Number(row.last_totp_step),
    tags: row.tags,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Creates the MFA queries over the auth schema. */
export function createMfaStore(db: Kysely<AuthDb>, events: AuthEvents) {
  return {
    /** The identity's enrollment, if any. */
    async findByIdentity(identityId: string): Promise<Mfa | undefined> {
      const row = await db.selectFrom('mfas').selectAll().where('identity_id', '=', identityId).executeTakeFirst();
      return row && toMfa(row);
    },

    /** Inserts an enrollment unless the identity has one; false when it had. */
    async insert(m: NewMfa): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const rows = await trx.insertInto('mfas')
          .values({ id: m.id, identity_id: m.identityId, secret_sealed: m.secretSealed, recovery_codes_sealed: m.recoveryCodesSealed })
          .onConflict((oc) => oc.column('identity_id').doNothing())
          .returning('id').execute();
        if (rows.length === 0) return false;
        await trx.insertInto('mfa_recovery_codes').values(m.recoveryCodeHashes.map((code_hash) => ({ mfa_id: m.id, code_hash }))).execute();
        return true;
      });
    },

    /** Marks an enrollment verified and announces it (MFA is enabled for its identity from now on). */
    async markVerified(id: string): Promise<void> {
      await events.transaction(async (trx) => {
        const row = await trx.updateTable('mfas').set({ is_verified: true, updated_at: sql<Date>`now()` }).where('id', '=', id)
          .returning(['id', 'identity_id']).executeTakeFirst();
        if (row) await events.mfaVerified(trx, { id: row.id, identityId: row.identity_id });
      });
    },

    /**
     * Records `step` as the last TOTP step used, unless that step or a later one was recorded
     * meanwhile (a concurrent request with the same code); true when this call recorded it.
     */
    async recordTotpStep(id: string, step: number): Promise<boolean> {
      const r = await db.updateTable('mfas').set({ last_totp_step: step })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_totp_step', 'is', null), eb('last_totp_step', '<', sql<string>`${step}`)]))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },

    /** Deletes a recovery code by its hash; true when this call consumed it. */
    async consumeRecoveryCode(mfaId: string, codeHash: string): Promise<boolean> {
      const r = await db.deleteFrom('mfa_recovery_codes').where('mfa_id', '=', mfaId).where('code_hash', '=', codeHash).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    /** The hashes of the recovery codes still unused. */
    async recoveryCodeHashes(mfaId: string): Promise<Set<string>> {
      const rows = await db.selectFrom('mfa_recovery_codes').select('code_hash').where('mfa_id', '=', mfaId).execute();
      return new Set(rows.map((r) => r.code_hash));
    },

    /** Replaces every recovery code of an enrollment. */
    async replaceRecoveryCodes(mfaId: string, sealed: string, hashes: string[]): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('mfa_recovery_codes').where('mfa_id', '=', mfaId).execute();
        await trx.insertInto('mfa_recovery_codes').values(hashes.map((code_hash) => ({ mfa_id: mfaId, code_hash }))).execute();
        await trx.updateTable('mfas').set({ recovery_codes_sealed: sealed, updated_at: sql<Date>`now()` }).where('id', '=', mfaId).execute();
      });
    },

    /** Deletes every enrollment of an identity, announcing each; the ids this call deleted. */
    async deleteForIdentity(identityId: string): Promise<string[]> {
      return events.transaction(async (trx) => {
        const rows = await trx.deleteFrom('mfas').where('identity_id', '=', identityId).returning('id').execute();
        for (const r of rows) await events.mfaDeleted(trx, { id: r.id, identityId });
        return rows.map((r) => r.id);
      });
    },

    /** Counts one wrong code on an API session; the count after it (0 when the session is gone). */
    async countMfaFailure(apiSessionId: string): Promise<number> {
      const row = await db.updateTable('api_sessions').set((eb) => ({ mfa_failed_attempts: eb('mfa_failed_attempts', '+', 1) }))
        .where('id', '=', apiSessionId).returning('mfa_failed_attempts').executeTakeFirst();
      return row?.mfa_failed_attempts ?? 0;
    },

    /** Marks MFA required and complete on an API session. */
    async completeApiSessionMfa(session: ApiSessionRef): Promise<void> {
      await events.transaction(async (trx) => {
        await trx.updateTable('api_sessions').set({ is_mfa_required: true, is_mfa_complete: true, updated_at: sql<Date>`now()` })
          .where('id', '=', session.id).execute();
        await events.apiSessionUpdated(trx, session);
      });
    },

    /** Stores a TOTP token's hash for an API session; when it was issued. */
    async insertTotpToken(tokenHash: string, apiSessionId: string): Promise<Date> {
      const row = await db.insertInto('totp_tokens').values({ token_hash: tokenHash, api_session_id: apiSessionId })
        .returning('issued_at').executeTakeFirstOrThrow();
      return row.issued_at;
    },

    /** The installation's scrypt salt, storing `salt` when none is stored yet. */
    async ensureScryptSalt(salt: Buffer): Promise<Buffer> {
      await db.insertInto('key_encryption').values({ scrypt_salt: salt }).onConflict((oc) => oc.column('id').doNothing()).execute();
      const row = await db.selectFrom('key_encryption').select('scrypt_salt').executeTakeFirstOrThrow();
      return Buffer.from(row.scrypt_salt);
    },
  };
}

/** The MFA queries. */
export type MfaStore = ReturnType<typeof createMfaStore>;

/**
 * The failed-password lockout, kept on the authenticator row so every replica sees the same
 * state and each decision is one statement: a failure is counted, and the one reaching the
 * policy's maxAttempts locks the row, atomically; a correct password is admitted only by a
 * statement that finds the row unlocked. So once maxAttempts failures are recorded, no login
 * racing them gets in, whatever the identity service has been told yet.
 */
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { AuthDb } from './db.js';

/** What a policy says about consecutive wrong passwords. */
export interface LockoutRule {
  /** Consecutive failures that lock; 0: unlimited. */
  maxAttempts: number;
  /** How long a lockout lasts; 0: until the identity is enabled again. */
  lockoutDurationMinutes: number;
}

/** The row is not locked now. */
const unlocked = (eb: ExpressionBuilder<AuthDb, 'authenticators'>) =>
  eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', sql<Date>`now()`)]);

/** Creates the lockout statements over the auth schema. */
export function createLockoutStore(db: Kysely<AuthDb>) {
  return {
    /**
     * Counts one wrong password, unless the row is locked already; true when this failure
     * reached maxAttempts and locked it (the count starts again for after the lockout).
     */
    async recordFailure(authenticatorId: string, rule: LockoutRule): Promise<boolean> {
      const reached = sql<boolean>`${rule.maxAttempts} > 0 and failed_attempts + 1 >= ${rule.maxAttempts}`;
      // 'infinity' for "until enabled": enabling the identity clears it (clearForIdentity)
      const until = rule.lockoutDurationMinutes > 0
        ? sql<Date>`now() + make_interval(mins => ${rule.lockoutDurationMinutes})`
        : sql<Date>`'infinity'::timestamptz`;
      const row = await db.updateTable('authenticators')
        .set({
          failed_attempts: sql<number>`case when ${reached} then 0 else failed_attempts + 1 end`,
          locked_until: sql<Date | null>`case when ${reached} then ${until} else locked_until end`,
        })
        .where('id', '=', authenticatorId)
        .where(unlocked)
        .returning(['failed_attempts', 'locked_until'])
        .executeTakeFirst();
      // the count only drops to 0 through the locking branch (a failure adds at least 1)
      return row !== undefined && rule.maxAttempts > 0 && row.failed_attempts === 0 && row.locked_until !== null;
    },

    /**
     * Admits a correct password: false while the row is locked. The check is the point at
     * which the login counts; the count then starts again, by a statement that cannot lift a
     * lockout imposed in between.
     */
    async admit(authenticatorId: string): Promise<boolean> {
      const row = await db.selectFrom('authenticators')
        .select(['failed_attempts', sql<boolean>`coalesce(locked_until > now(), false)`.as('locked')])
        .where('id', '=', authenticatorId).executeTakeFirst();
      if (!row || row.locked) return false;
      if (row.failed_attempts > 0) {
        await db.updateTable('authenticators').set({ failed_attempts: 0, locked_until: null })
          .where('id', '=', authenticatorId).where(unlocked).execute();
      }
      return true;
    },

    /** Lifts the lockouts of an identity an administrator enabled again. */
    async clearForIdentity(identityId: string): Promise<void> {
      await db.updateTable('authenticators').set({ failed_attempts: 0, locked_until: null })
        .where('identity_id', '=', identityId).where('locked_until', 'is not', null).execute();
    },
  };
}

/** The lockout statements. */
export type LockoutStore = ReturnType<typeof createLockoutStore>;

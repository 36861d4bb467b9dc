/**
 * The failed-password lockout, kept on the authenticator row so every replica sees the same
 * state and each decision is one statement: a failure is counted, and the one reaching the
 * policy's maxAttempts locks the row, atomically; a correct password is admitted only by a
 * statement that finds the row unlocked. So once maxAttempts failures are recorded, no login
 * racing them gets in, whatever the identity service has been told yet. That statement reads,
 * with the lockout, the rest a login needs once its password is checked (identity, policy, TOTP).
 */
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import { precompiled } from '@edge/db';
import type { AuthPolicy } from '../domain/auth-policy.js';
import type { AuthDb } from './db.js';
import { identityAndPolicyOf, withIdentityAndPolicy } from './identity-and-policy.js';
import type { ModelLookup } from './identity-model.js';

/** What a policy says about consecutive wrong passwords. */
export interface LockoutRule {
  /** Consecutive failures that lock; 0: unlimited. */
  maxAttempts: number;
  /** How long a lockout lasts; 0: until the identity is enabled again. */
  lockoutDurationMinutes: number;
}

/**
 * What a login reads once its password is checked, right or wrong: the lockout of its
 * authenticator, its identity as the read model holds it, that identity's auth policy (the
 * default one when it names none that exists) and whether it has verified TOTP.
 */
export interface CheckedPassword {
  /** Locked now: a correct password is not admitted. */
  locked: boolean;
  /** Failures counted since the last admitted login. */
  failedAttempts: number;
  identity: ModelLookup;
  /** The policy of a present identity; undefined when the model does not hold it (or no policy exists). */
  policy: AuthPolicy | undefined;
  totpEnrolled: boolean;
}

/** The row is not locked now. */
const unlocked = (eb: ExpressionBuilder<AuthDb, 'authenticators'>) =>
  eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', sql<Date>`now()`)]);

/** Creates the lockout statements over the auth schema. */
export function createLockoutStore(db: Kysely<AuthDb>) {
  // One statement: the lockout and TOTP of the authenticator, its identity and that identity's policy.
  const checked = precompiled(1, (authenticatorId: string) => withIdentityAndPolicy(db.selectFrom('authenticators as a')
    .select((eb) => [
      'a.failed_attempts', sql<boolean>`coalesce(a.locked_until > now(), false)`.as('locked'),
      eb.exists(eb.selectFrom('mfas as m').select('m.id').whereRef('m.identity_id', '=', 'a.identity_id').where('m.is_verified', '=', true)).as('totp'),
    ])
    .where('a.id', '=', authenticatorId), 'a.identity_id'));

  return {
    /** What a login reads once its password is checked (see {@link CheckedPassword}); undefined when the authenticator is gone. */
    async checkedPassword(authenticatorId: string): Promise<CheckedPassword | undefined> {
      const row = (await checked(db, authenticatorId))[0] as Record<string, unknown> | undefined;
      if (!row) return undefined;
      return { locked: row.locked as boolean, failedAttempts: row.failed_attempts as number, ...identityAndPolicyOf(row), totpEnrolled: row.totp as boolean };
    },

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
     * Admits a correct password, given what was read once it was checked: false while the row
     * was locked. That read is the point at which the login counts; the count then starts
     * again, by a statement that cannot lift a lockout imposed in between.
     */
    async admit(authenticatorId: string, checked: CheckedPassword): Promise<boolean> {
      if (checked.locked) return false;
      if (checked.failedAttempts > 0) {
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

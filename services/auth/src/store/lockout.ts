/**
 * The failed-password lockout, kept on the authenticator row so every replica sees the same
 * state and each decision is one statement: a failure is counted, and the one reaching the
 * policy's maxAttempts locks the row, atomically; a correct password is admitted only by a
 * statement that finds the row unlocked. So once maxAttempts failures are recorded, no login
 * racing them gets in, whatever the identity service has been told yet. That statement reads,
 * with the lockout, the rest a login needs once its password is checked (identity, policy, TOTP).
 */
import { sql, type ExpressionBuilder, type Kysely, type Selectable } from 'kysely';
import { precompiled } from '@edge/db';
import { DEFAULT_AUTH_POLICY_ID, type AuthPolicy } from '../domain/auth-policy.js';
import { toAuthPolicy } from './auth-policy.js';
import type { AuthDb, AuthPoliciesTable, IdentitiesTable } from './db.js';
import { lookupOf, type ModelLookup } from './identity-model.js';

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

/** Every key of a row type, listed once: the compiler refuses a record missing one, so a column added to the table is read here too. */
const columnsOf = <Row>(columns: Record<keyof Row & string, true>) => Object.keys(columns) as Array<keyof Row & string>;

const IDENTITY_COLUMNS = columnsOf<Omit<IdentitiesTable, 'seen_at'>>({
  id: true, name: true, type_id: true, is_admin: true, is_default_admin: true, disabled: true, disabled_until: true, auth_policy_id: true,
  external_id: true, permissions: true, role_attributes: true, deleted: true, updated_at: true,
});
const POLICY_COLUMNS = columnsOf<AuthPoliciesTable>({
  id: true, name: true, primary_cert_allowed: true, primary_cert_allow_expired_certs: true, primary_ext_jwt_allowed: true,
  primary_ext_jwt_allowed_signers: true, primary_updb_allowed: true, primary_updb_min_password_length: true, primary_updb_require_mixed_case: true,
  primary_updb_require_number_char: true, primary_updb_require_special_char: true, primary_updb_max_attempts: true,
  primary_updb_lockout_duration_minutes: true, secondary_require_totp: true, secondary_require_ext_jwt_signer: true, tags: true,
  created_at: true, updated_at: true,
});

/** The columns of `table` (aliased `prefix_column`) taken back out of a row. */
function unprefixed<C extends string>(row: Record<string, unknown>, prefix: string, columns: readonly C[]): Record<C, unknown> | undefined {
  if (row[`${prefix}_id`] === null) return undefined;
  return Object.fromEntries(columns.map((c) => [c, row[`${prefix}_${c}`]])) as Record<C, unknown>;
}

/** The row is not locked now. */
const unlocked = (eb: ExpressionBuilder<AuthDb, 'authenticators'>) =>
  eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', sql<Date>`now()`)]);

/** Creates the lockout statements over the auth schema. */
export function createLockoutStore(db: Kysely<AuthDb>) {
  // One statement: the policy is the identity's, or the default one (ordered after it).
  const checked = precompiled(1, (authenticatorId: string) => db.selectFrom('authenticators as a')
    .leftJoin('identities as i', 'i.id', 'a.identity_id')
    .leftJoinLateral((eb) => eb.selectFrom('auth_policies as ap').select(POLICY_COLUMNS.map((c) => `ap.${c}` as const))
      .where((w) => w.or([w('ap.id', '=', w.ref('i.auth_policy_id')), w('ap.id', '=', DEFAULT_AUTH_POLICY_ID)]))
      .orderBy(sql`ap.id = i.auth_policy_id`, 'desc').limit(1).as('p'), (join) => join.onTrue())
    .select((eb) => [
      'a.failed_attempts', sql<boolean>`coalesce(a.locked_until > now(), false)`.as('locked'),
      eb.exists(eb.selectFrom('mfas as m').select('m.id').whereRef('m.identity_id', '=', 'a.identity_id').where('m.is_verified', '=', true)).as('totp'),
      ...IDENTITY_COLUMNS.map((c) => sql.ref(`i.${c}`).as(`i_${c}`)),
      ...POLICY_COLUMNS.map((c) => sql.ref(`p.${c}`).as(`p_${c}`)),
    ])
    .where('a.id', '=', authenticatorId));

  return {
    /** What a login reads once its password is checked (see {@link CheckedPassword}); undefined when the authenticator is gone. */
    async checkedPassword(authenticatorId: string): Promise<CheckedPassword | undefined> {
      const row = (await checked(db, authenticatorId))[0] as Record<string, unknown> | undefined;
      if (!row) return undefined;
      const identity = lookupOf(unprefixed(row, 'i', IDENTITY_COLUMNS) as Omit<IdentitiesTable, 'seen_at'> | undefined);
      const policy = unprefixed(row, 'p', POLICY_COLUMNS) as Selectable<AuthPoliciesTable> | undefined;
      return {
        locked: row.locked as boolean, failedAttempts: row.failed_attempts as number, identity,
        policy: identity.state === 'present' && policy ? toAuthPolicy(policy) : undefined, totpEnrolled: row.totp as boolean,
      };
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

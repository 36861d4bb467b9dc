/**
 * The identity an auth row belongs to, as the read model holds it, and that identity's auth
 * policy (the default one when it names none that exists), read in the same statement as the
 * row: what a login reads once its password is checked, and what a validation reads with its
 * API session. The identity's columns come back as `i_<column>`, the policy's as `p_<column>`.
 */
import { sql, type Selectable } from 'kysely';
import { DEFAULT_AUTH_POLICY_ID, type AuthPolicy } from '../domain/auth-policy.js';
import { toAuthPolicy } from './auth-policy.js';
import type { AuthPoliciesTable, IdentitiesTable } from './db.js';
import { lookupOf, type ModelLookup } from './identity-model.js';

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

/**
 * Joins to `query` (a select whose row names its identity in `identityIdRef`, `<alias>.identity_id`)
 * that identity (`i`) and its policy (`p`, a lateral: the identity's, ordered before the default
 * one), and selects their columns, prefixed.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- the same join over any table naming an identity, so built untyped */
export function withIdentityAndPolicy<Q>(query: Q, identityIdRef: string): Q {
  return (query as any).leftJoin('identities as i', 'i.id', identityIdRef)
    .leftJoinLateral((eb: any) => eb.selectFrom('auth_policies as ap').select(POLICY_COLUMNS.map((c) => `ap.${c}`))
      .where((w: any) => w.or([w('ap.id', '=', w.ref('i.auth_policy_id')), w('ap.id', '=', DEFAULT_AUTH_POLICY_ID)]))
      .orderBy(sql`ap.id = i.auth_policy_id`, 'desc').limit(1).as('p'), (join: any) => join.onTrue())
    .select([
      ...IDENTITY_COLUMNS.map((c) => sql.ref(`i.${c}`).as(`i_${c}`)),
      ...POLICY_COLUMNS.map((c) => sql.ref(`p.${c}`).as(`p_${c}`)),
    ]) as Q;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** The columns of `table` (aliased `prefix_column`) taken back out of a row. */
function unprefixed<C extends string>(row: Record<string, unknown>, prefix: string, columns: readonly C[]): Record<C, unknown> | undefined {
  if (row[`${prefix}_id`] === null) return undefined;
  return Object.fromEntries(columns.map((c) => [c, row[`${prefix}_${c}`]])) as Record<C, unknown>;
}

/** The identity and policy of a row read with {@link withIdentityAndPolicy}; a policy only for an identity the model holds. */
export function identityAndPolicyOf(row: Record<string, unknown>): { identity: ModelLookup; policy: AuthPolicy | undefined } {
  const identity = lookupOf(unprefixed(row, 'i', IDENTITY_COLUMNS) as Omit<IdentitiesTable, 'seen_at'> | undefined);
  const policy = unprefixed(row, 'p', POLICY_COLUMNS) as Selectable<AuthPoliciesTable> | undefined;
  return { identity, policy: identity.state === 'present' && policy ? toAuthPolicy(policy) : undefined };
}

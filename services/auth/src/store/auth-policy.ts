/**
 * The auth policy queries of the auth service.
 */
import { isUniqueViolation } from '@edge/db';
import { fieldError, notFound } from '@edge/errors';
import { entityFields, field, runList, type FieldMap, type ListPlan } from '@edge/zitiql';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { AuthPolicy, AuthPolicyInput } from '../domain/auth-policy.js';
import type { AuthEvents } from '../events.js';
import type { AuthDb, AuthPoliciesTable } from './db.js';

/** What a filter on `/auth-policies` may read. */
export const AUTH_POLICY_FIELDS: FieldMap = {
  ...entityFields({ named: true }),
  'primary.cert.allowed': field.bool('primary_cert_allowed'),
  'primary.cert.allowExpiredCerts': field.bool('primary_cert_allow_expired_certs'),
  'primary.extJwt.allowed': field.bool('primary_ext_jwt_allowed'),
  'primary.updb.allowed': field.bool('primary_updb_allowed'),
  'primary.updb.maxAttempts': field.number('primary_updb_max_attempts'),
  'primary.updb.minPasswordLength': field.number('primary_updb_min_password_length'),
  'secondary.requireTotp': field.bool('secondary_require_totp'),
};

/** A page of auth policies. */
export interface AuthPolicyPage {
  items: AuthPolicy[];
  total: number;
}

export function toAuthPolicy(r: Selectable<AuthPoliciesTable>): AuthPolicy {
  return {
    id: r.id,
    name: r.name,
    primary: {
      cert: { allowed: r.primary_cert_allowed, allowExpiredCerts: r.primary_cert_allow_expired_certs },
      extJwt: { allowed: r.primary_ext_jwt_allowed, allowedSigners: r.primary_ext_jwt_allowed_signers },
      updb: {
        allowed: r.primary_updb_allowed,
        minPasswordLength: r.primary_updb_min_password_length,
        requireMixedCase: r.primary_updb_require_mixed_case,
        requireNumberChar: r.primary_updb_require_number_char,
        requireSpecialChar: r.primary_updb_require_special_char,
        maxAttempts: r.primary_updb_max_attempts,
        lockoutDurationMinutes: r.primary_updb_lockout_duration_minutes,
      },
    },
    secondary: { requireTotp: r.secondary_require_totp, requireExtJwtSigner: r.secondary_require_ext_jwt_signer },
    tags: r.tags,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toRow(p: AuthPolicyInput) {
  const { cert, extJwt, updb } = p.primary;
  return {
    name: p.name,
    primary_cert_allowed: cert.allowed,
    primary_cert_allow_expired_certs: cert.allowExpiredCerts,
    primary_ext_jwt_allowed: extJwt.allowed,
    primary_ext_jwt_allowed_signers: extJwt.allowedSigners,
    primary_updb_allowed: updb.allowed,
    primary_updb_min_password_length: updb.minPasswordLength,
    primary_updb_require_mixed_case: updb.requireMixedCase,
    primary_updb_require_number_char: updb.requireNumberChar,
    primary_updb_require_special_char: updb.requireSpecialChar,
    primary_updb_max_attempts: updb.maxAttempts,
    primary_updb_lockout_duration_minutes: updb.lockoutDurationMinutes,
    secondary_require_totp: p.secondary.requireTotp,
    secondary_require_ext_jwt_signer: p.secondary.requireExtJwtSigner,
    tags: JSON.stringify(p.tags),
  };
}

/** A duplicate name is a field error, as OpenZiti answers it. */
function duplicateName(err: unknown, p: AuthPolicyInput): never {
  if (isUniqueViolation(err)) throw fieldError('name', `duplicate value '${p.name}' in unique index on authPolicies store`, p.name);
  throw err;
}

/** Creates the auth policy queries over the auth schema. */
export function createAuthPolicyStore(db: Kysely<AuthDb>, events: AuthEvents) {
  return {
    async insert(id: string, p: AuthPolicyInput): Promise<void> {
      await db.insertInto('auth_policies').values({ id, ...toRow(p) }).execute().catch((err: unknown) => duplicateName(err, p));
    },

    async find(id: string): Promise<AuthPolicy | undefined> {
      const row = await db.selectFrom('auth_policies').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toAuthPolicy(row);
    },

    async get(id: string): Promise<AuthPolicy> {
      const found = await this.find(id);
      if (!found) throw notFound('authPolicy', id);
      return found;
    },

    async list(plan: ListPlan): Promise<AuthPolicyPage> {
      const { rows, total } = await runList(db.selectFrom('auth_policies'), plan, (qb) => qb.selectAll());
      return { items: (rows as Selectable<AuthPoliciesTable>[]).map(toAuthPolicy), total };
    },

    async update(id: string, p: AuthPolicyInput): Promise<void> {
      await events.transaction(async (trx) => {
        const r = await trx.updateTable('auth_policies').set({ ...toRow(p), updated_at: sql<Date>`now()` }).where('id', '=', id)
          .executeTakeFirst().catch((err: unknown) => duplicateName(err, p));
        if (Number(r.numUpdatedRows) === 0) throw notFound('authPolicy', id);
        await events.settingChanged(trx, 'auth-policy', id, 'updated');
      });
    },

    async delete(id: string): Promise<boolean> {
      return events.transaction(async (trx) => {
        const r = await trx.deleteFrom('auth_policies').where('id', '=', id).executeTakeFirst();
        const gone = Number(r.numDeletedRows) > 0;
        if (gone) await events.settingChanged(trx, 'auth-policy', id, 'deleted');
        return gone;
      });
    },

    /** How many policies name this external JWT signer. */
    async countUsingSigner(signerId: string): Promise<number> {
      const r = await db.selectFrom('auth_policies').select((eb) => eb.fn.countAll<string>().as('n'))
        .where((eb) => eb.or([
          eb('primary_ext_jwt_allowed_signers', '@>', sql<string[]>`array[${signerId}]::text[]`),
          eb('secondary_require_ext_jwt_signer', '=', signerId),
        ])).executeTakeFirstOrThrow();
      return Number(r.n);
    },
  };
}

/** The auth policy queries. */
export type AuthPolicyStore = ReturnType<typeof createAuthPolicyStore>;

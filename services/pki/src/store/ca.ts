/**
 * Every query on certificate authorities, and the row ↔ domain mapping.
 */
import { sql, type Selectable } from 'kysely';
import { isUniqueViolation } from '@edge/db';
import { fieldError } from '@edge/errors';
import { entityFields, field, runList, type FieldMap, type ListPlan } from '@edge/zitiql';
import type { Ca, CaInput } from '../domain/ca.js';
import type { PkiEvents } from '../events.js';
import type { CasTable, PkiKysely } from './db.js';

/** What a filter on `/cas` may read (the symbols of OpenZiti's ca_store.go). */
export const CA_FIELDS_MAP: FieldMap = {
  ...entityFields({ named: true }),
  fingerprint: field.string('fingerprint'),
  isVerified: field.bool('is_verified'),
  verificationToken: field.string('verification_token'),
  isAutoCaEnrollmentEnabled: field.bool('is_auto_ca_enrollment_enabled'),
  isOttCaEnrollmentEnabled: field.bool('is_ott_ca_enrollment_enabled'),
  isAuthEnabled: field.bool('is_auth_enabled'),
  identityRoles: field.set('identity_roles'),
  identityNameFormat: field.string('identity_name_format'),
};

function toDomain(r: Selectable<CasTable>): Ca {
  return {
    id: r.id, name: r.name, fingerprint: r.fingerprint, certPem: r.cert_pem, isVerified: r.is_verified, verificationToken: r.verification_token,
    isAuthEnabled: r.is_auth_enabled, isAutoCaEnrollmentEnabled: r.is_auto_ca_enrollment_enabled, isOttCaEnrollmentEnabled: r.is_ott_ca_enrollment_enabled,
    identityRoles: r.identity_roles, identityNameFormat: r.identity_name_format, externalIdClaim: r.external_id_claim, tags: r.tags,
    createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

function toRow(c: CaInput) {
  return {
    name: c.name, is_auth_enabled: c.isAuthEnabled, is_auto_ca_enrollment_enabled: c.isAutoCaEnrollmentEnabled,
    is_ott_ca_enrollment_enabled: c.isOttCaEnrollmentEnabled, identity_roles: c.identityRoles, identity_name_format: c.identityNameFormat,
    external_id_claim: c.externalIdClaim ? JSON.stringify(c.externalIdClaim) : null, tags: JSON.stringify(c.tags),
  };
}

function taken(err: unknown, c: CaInput): never {
  const v = isUniqueViolation(err);
  if (v?.constraint === 'cas_name_key') throw fieldError('name', 'is already in use', c.name);
  if (v?.constraint === 'cas_fingerprint_key') throw fieldError('certPem', 'certificate already used as CA', null);
  throw err;
}

const now = sql<Date>`date_trunc('milliseconds', now())`;

/** Creates the CA store over the pki schema; every change records its event in its transaction. */
export function createCaStore(db: PkiKysely, events: PkiEvents) {
  return {
    async insert(id: string, c: CaInput, fingerprint: string, verificationToken: string): Promise<void> {
      await events.transaction(async (trx) => {
        await trx.insertInto('cas').values({ id, ...toRow(c), cert_pem: c.certPem, fingerprint, verification_token: verificationToken })
          .execute().catch((err: unknown) => taken(err, c));
        await events.caChanged(trx, 'created', id);
      });
    },

    async find(id: string): Promise<Ca | undefined> {
      const row = await db.selectFrom('cas').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toDomain(row);
    },

    async list(plan: ListPlan): Promise<{ items: Ca[]; total: number }> {
      const { rows, total } = await runList(db.selectFrom('cas'), plan, (qb) => qb.selectAll());
      return { items: (rows as Selectable<CasTable>[]).map(toDomain), total };
    },

    /** Verified CAs, optionally only those with one of the flags set. */
    async verified(flag?: 'is_auth_enabled' | 'is_auto_ca_enrollment_enabled' | 'is_ott_ca_enrollment_enabled'): Promise<Ca[]> {
      let q = db.selectFrom('cas').selectAll().where('is_verified', '=', true);
      if (flag) q = q.where(flag, '=', true);
      return (await q.orderBy('created_at').orderBy('id').execute()).map(toDomain);
    },

    /** Writes the updatable fields; false when the CA is gone. */
    async update(id: string, c: CaInput): Promise<boolean> {
      return events.transaction(async (trx) => {
        const r = await trx.updateTable('cas').set({ ...toRow(c), updated_at: now }).where('id', '=', id)
          .executeTakeFirst().catch((err: unknown) => taken(err, c));
        const updated = Number(r.numUpdatedRows) > 0;
        if (updated) await events.caChanged(trx, 'updated', id);
        return updated;
      });
    },

    /** Marks verified unless it already is; false when nothing changed (then nothing is announced). */
    async markVerified(id: string): Promise<boolean> {
      return events.transaction(async (trx) => {
        const r = await trx.updateTable('cas').set({ is_verified: true, updated_at: now }).where('id', '=', id).where('is_verified', '=', false).executeTakeFirst();
        const verified = Number(r.numUpdatedRows) > 0;
        if (verified) await events.caChanged(trx, 'verified', id);
        return verified;
      });
    },

    /** Deletes the CA and its enrollments in one transaction, with their events; the deleted CA, if there was one. */
    async delete(id: string): Promise<Ca | undefined> {
      return events.transaction(async (trx) => {
        const row = await trx.deleteFrom('cas').where('id', '=', id).returningAll().executeTakeFirst();
        if (!row) return undefined;
        const enrollments = await trx.deleteFrom('enrollments').where('ca_id', '=', id)
          .returning(['id', 'identity_id as identityId', 'edge_router_id as edgeRouterId', 'transit_router_id as transitRouterId']).execute();
        await events.enrollmentsChanged(trx, 'deleted', enrollments);
        await events.caDeleted(trx, { id: row.id, certPem: row.cert_pem });
        return toDomain(row);
      });
    },
  };
}

export type CaStore = ReturnType<typeof createCaStore>;

/**
 * External JWT signer queries, and the row ↔ domain mapping.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import { isUniqueViolation } from '@edge/db';
import { fieldError, notFound } from '@edge/errors';
import { entityFields, field, runList, type FieldMap, type ListPlan } from '@edge/zitiql';
import type { ExtJwtSigner, ExtJwtSignerInput, SignerCertificate, TargetToken } from '../domain/ext-jwt-signer.js';
import type { AuthEvents } from '../events.js';
import type { AuthDb, ExternalJwtSignersTable } from './db.js';

/** What a filter on `/external-jwt-signers` may read. */
export const EXT_JWT_SIGNER_FIELDS_MAP: FieldMap = {
  ...entityFields({ named: true }),
  issuer: field.string('issuer'),
  audience: field.string('audience'),
  enabled: field.bool('enabled'),
  kid: field.string('kid', { nullable: true }),
  fingerprint: field.string('fingerprint', { nullable: true }),
  commonName: field.string('common_name', { nullable: true }),
  jwksEndpoint: field.string('jwks_endpoint', { nullable: true }),
  claimsProperty: field.string('claims_property'),
  useExternalId: field.bool('use_external_id'),
};

function toDomain(r: Selectable<ExternalJwtSignersTable>): ExtJwtSigner {
  const certificate: SignerCertificate | null = r.fingerprint
    ? { fingerprint: r.fingerprint, commonName: r.common_name ?? '', notBefore: r.not_before!, notAfter: r.not_after! }
    : null;
  return {
    id: r.id, name: r.name, certPem: r.cert_pem, jwksEndpoint: r.jwks_endpoint, kid: r.kid, issuer: r.issuer, audience: r.audience,
    claimsProperty: r.claims_property, useExternalId: r.use_external_id, externalAuthUrl: r.external_auth_url, clientId: r.client_id,
    scopes: r.scopes, targetToken: r.target_token, enabled: r.enabled, enrollToCertEnabled: r.enroll_to_cert_enabled,
    enrollToTokenEnabled: r.enroll_to_token_enabled, enrollAuthPolicyId: r.enroll_auth_policy_id,
    enrollNameClaimsSelector: r.enroll_name_claims_selector, enrollAttributeClaimsSelector: r.enroll_attribute_claims_selector,
    tags: r.tags, certificate, createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

function toRow(s: ExtJwtSignerInput, cert: SignerCertificate | null) {
  return {
    name: s.name, cert_pem: s.certPem, jwks_endpoint: s.jwksEndpoint, kid: s.kid, issuer: s.issuer, audience: s.audience,
    claims_property: s.claimsProperty, use_external_id: s.useExternalId, external_auth_url: s.externalAuthUrl, client_id: s.clientId,
    scopes: s.scopes, target_token: s.targetToken, enabled: s.enabled, enroll_to_cert_enabled: s.enrollToCertEnabled,
    enroll_to_token_enabled: s.enrollToTokenEnabled, enroll_auth_policy_id: s.enrollAuthPolicyId,
    enroll_name_claims_selector: s.enrollNameClaimsSelector, enroll_attribute_claims_selector: s.enrollAttributeClaimsSelector,
    fingerprint: cert?.fingerprint ?? null, common_name: cert?.commonName ?? null, not_before: cert?.notBefore ?? null, not_after: cert?.notAfter ?? null,
    tags: JSON.stringify(s.tags),
  };
}

/**
 * A taken name, issuer, kid or certificate, answered as OpenZiti answers a unique index
 * violation (controller/internal/routes/base_router.go): 400 on the stored field, here
 * `fingerprint` for a certificate another signer has.
 */
function taken(err: unknown, s: ExtJwtSignerInput, cert: SignerCertificate | null): never {
  const constraint = isUniqueViolation(err)?.constraint ?? '';
  const values: Record<string, unknown> = { name: s.name, issuer: s.issuer, kid: s.kid, fingerprint: cert?.fingerprint };
  const field = Object.keys(values).find((f) => constraint.endsWith(`_${f}_key`));
  if (field) throw fieldError(field, `duplicate value '${String(values[field])}' in unique index on externalJwtSigners store`, values[field]);
  throw err;
}

/** Creates the signer store over the auth schema. */
export function createExtJwtSignerStore(db: Kysely<AuthDb>, events: AuthEvents) {
  return {
    async insert(id: string, s: ExtJwtSignerInput, cert: SignerCertificate | null): Promise<void> {
      await db.insertInto('external_jwt_signers').values({ id, ...toRow(s, cert) }).execute().catch((err: unknown) => taken(err, s, cert));
    },

    async find(id: string): Promise<ExtJwtSigner | undefined> {
      const row = await db.selectFrom('external_jwt_signers').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toDomain(row);
    },

    async get(id: string): Promise<ExtJwtSigner> {
      const found = await this.find(id);
      if (!found) throw notFound('externalJwtSigner', id);
      return found;
    },

    async findByIssuer(issuer: string): Promise<ExtJwtSigner | undefined> {
      const row = await db.selectFrom('external_jwt_signers').selectAll().where('issuer', '=', issuer).executeTakeFirst();
      return row && toDomain(row);
    },

    async existing(ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await db.selectFrom('external_jwt_signers').select('id').where('id', 'in', ids).execute();
      return new Set(rows.map((r) => r.id));
    },

    async list(plan: ListPlan, enabledOnly = false): Promise<{ items: ExtJwtSigner[]; total: number }> {
      const from = enabledOnly ? db.selectFrom('external_jwt_signers').where('enabled', '=', true) : db.selectFrom('external_jwt_signers');
      const { rows, total } = await runList(from, plan, (qb) => qb.selectAll());
      return { items: (rows as Selectable<ExternalJwtSignersTable>[]).map(toDomain), total };
    },

    async update(id: string, s: ExtJwtSignerInput, cert: SignerCertificate | null): Promise<void> {
      await events.transaction(async (trx) => {
        const r = await trx.updateTable('external_jwt_signers').set({ ...toRow(s, cert), updated_at: sql<Date>`date_trunc('milliseconds', now())` })
          .where('id', '=', id).executeTakeFirst().catch((err: unknown) => taken(err, s, cert));
        if (Number(r.numUpdatedRows) === 0) throw notFound('externalJwtSigner', id);
        await events.settingChanged(trx, 'external-jwt-signer', id, 'updated');
      });
    },

    async delete(id: string): Promise<boolean> {
      return events.transaction(async (trx) => {
        const r = await trx.deleteFrom('external_jwt_signers').where('id', '=', id).executeTakeFirst();
        const gone = Number(r.numDeletedRows) > 0;
        if (gone) await events.settingChanged(trx, 'external-jwt-signer', id, 'deleted');
        return gone;
      });
    },
  };
}

export type ExtJwtSignerStore = ReturnType<typeof createExtJwtSignerStore>;

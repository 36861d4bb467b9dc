/**
 * Every query on API session certificates; a session sees only its own.
 */
import type { Kysely, Selectable } from 'kysely';
import { entityFields, field, runList, type FieldMap, type ListPlan } from '@edge/zitiql';
import type { ApiSessionCertificatesTable, AuthDb } from './db.js';

/** What a filter on `/current-api-session/certificates` may read. */
export const API_SESSION_CERTIFICATE_FIELDS: FieldMap = {
  ...entityFields(),
  subject: field.string('subject'),
  fingerprint: field.string('fingerprint'),
  validFrom: field.datetime('valid_from'),
  validTo: field.datetime('valid_to'),
};

/** An API session certificate as stored. */
export interface ApiSessionCertificate {
  id: string;
  apiSessionId: string;
  subject: string;
  fingerprint: string;
  validFrom: Date;
  validTo: Date;
  certPem: string;
  createdAt: Date;
  updatedAt: Date;
}

function toDomain(r: Selectable<ApiSessionCertificatesTable>): ApiSessionCertificate {
  return {
    id: r.id, apiSessionId: r.api_session_id, subject: r.subject, fingerprint: r.fingerprint, validFrom: r.valid_from, validTo: r.valid_to,
    certPem: r.cert_pem, createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

/** Creates the store over the auth schema. */
export function createApiSessionCertificateStore(db: Kysely<AuthDb>) {
  const own = (apiSessionId: string) => db.selectFrom('api_session_certificates').where('api_session_id', '=', apiSessionId);
  return {
    async insert(c: Omit<ApiSessionCertificate, 'createdAt' | 'updatedAt'>): Promise<void> {
      await db.insertInto('api_session_certificates').values({
        id: c.id, api_session_id: c.apiSessionId, subject: c.subject, fingerprint: c.fingerprint, valid_from: c.validFrom, valid_to: c.validTo, cert_pem: c.certPem,
      }).execute();
    },

    async list(apiSessionId: string, plan: ListPlan): Promise<{ items: ApiSessionCertificate[]; total: number }> {
      const { rows, total } = await runList(own(apiSessionId), plan, (qb) => qb.selectAll());
      return { items: (rows as Selectable<ApiSessionCertificatesTable>[]).map(toDomain), total };
    },

    async find(apiSessionId: string, id: string): Promise<ApiSessionCertificate | undefined> {
      const row = await own(apiSessionId).selectAll().where('id', '=', id).executeTakeFirst();
      return row && toDomain(row);
    },

    /** False when the session has no such certificate. */
    async delete(apiSessionId: string, id: string): Promise<boolean> {
      const r = await db.deleteFrom('api_session_certificates').where('api_session_id', '=', apiSessionId).where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
  };
}

export type ApiSessionCertificateStore = ReturnType<typeof createApiSessionCertificateStore>;

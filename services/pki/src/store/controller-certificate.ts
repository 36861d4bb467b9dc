/**
 * Every query on the controller's own certificates (the chain, the server and the service CA).
 */
import { sql, type Selectable } from 'kysely';
import type { IssuedCertificate } from '../domain/certificates.js';
import type { ControllerCertificatesTable, PkiKysely } from './db.js';

/** A stored controller certificate; the private key still encrypted. */
export interface StoredCertificate extends Omit<IssuedCertificate, 'keyPem'> {
  keyEncrypted: string;
}

/** Queries on the controller's certificates; `withLock` hands the same queries bound to one transaction. */
export interface ControllerCertificateStore {
  listCertificates(): Promise<StoredCertificate[]>;
  /** Inserts unless a certificate of that kind exists; true when inserted. */
  insertCertificate(cert: StoredCertificate): Promise<boolean>;
  /** Replaces the certificate of `cert.kind` (server re-issue). */
  replaceCertificate(cert: StoredCertificate): Promise<void>;
  /**
   * Runs `fn` in a transaction that first takes a transaction-level advisory lock named `lock`,
   * so replicas doing the same work run one after another.
   */
  withLock<T>(lock: string, fn: (store: ControllerCertificateStore) => Promise<T>): Promise<T>;
}

/** Creates the store over a schema-bound Kysely (`createDb<PkiDb>(conn, schema)`). */
export function createControllerCertificateStore(db: PkiKysely): ControllerCertificateStore {
  return {
    async listCertificates() {
      const rows = await db.selectFrom('controller_certificates').selectAll().orderBy('kind').execute();
      return rows.map(toCertificate);
    },
    async insertCertificate(cert) {
      const res = await db.insertInto('controller_certificates').values(toRow(cert))
        .onConflict((oc) => oc.column('kind').doNothing()).executeTakeFirst();
      return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
    },
    async replaceCertificate(cert) {
      await db.updateTable('controller_certificates').set({ ...toRow(cert), updated_at: sql<Date>`now()` })
        .where('kind', '=', cert.kind).execute();
    },
    withLock(lock, fn) {
      return db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(hashtext(${lock}))`.execute(trx);
        return fn(createControllerCertificateStore(trx));
      });
    },
  };
}

function toRow(cert: StoredCertificate) {
  return {
    kind: cert.kind,
    serial_number: cert.serialNumber,
    subject: cert.subject,
    cert_pem: cert.certPem,
    key_encrypted: cert.keyEncrypted,
    sans: cert.sans,
    not_before: cert.notBefore,
    not_after: cert.notAfter,
  };
}

function toCertificate(row: Selectable<ControllerCertificatesTable>): StoredCertificate {
  return {
    kind: row.kind,
    serialNumber: row.serial_number,
    subject: row.subject,
    certPem: row.cert_pem,
    keyEncrypted: row.key_encrypted,
    sans: row.sans,
    notBefore: row.not_before,
    notAfter: row.not_after,
  };
}

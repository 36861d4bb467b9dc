/**
 * Every query of the pki service, over its own schema.
 */
import { sql, type Kysely, type Selectable, type Generated, type ColumnType } from 'kysely';
import type { CertificateKind, IssuedCertificate } from '../domain/certificates.js';
import type { CasTable } from './ca.js';
import type { EnrollmentsTable } from './enrollment.js';

interface ControllerCertificatesTable {
  kind: CertificateKind;
  serial_number: string;
  subject: string;
  cert_pem: string;
  key_encrypted: string;
  sans: string[];
  not_before: Date;
  not_after: Date;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

interface KeyEncryptionTable {
  id: Generated<boolean>;
  scrypt_salt: Buffer;
  created_at: ColumnType<Date, never, never>;
}

/** The tables of the pki schema. */
export interface PkiDb {
  controller_certificates: ControllerCertificatesTable;
  key_encryption: KeyEncryptionTable;
  enrollments: EnrollmentsTable;
  cas: CasTable;
}

/** A stored controller certificate; the private key still encrypted. */
export interface StoredCertificate extends Omit<IssuedCertificate, 'keyPem'> {
  keyEncrypted: string;
}

/** Queries of the pki service; `transaction` hands the same queries bound to one transaction. */
export interface PkiStore {
  /** Stores `salt` unless one exists, and returns the one in effect (first writer wins). */
  ensureScryptSalt(salt: Buffer): Promise<Buffer>;
  listCertificates(): Promise<StoredCertificate[]>;
  /** Inserts unless a certificate of that kind exists; true when inserted. */
  insertCertificate(cert: StoredCertificate): Promise<boolean>;
  /** Replaces the certificate of `cert.kind` (server re-issue). */
  replaceCertificate(cert: StoredCertificate): Promise<void>;
  /**
   * Runs `fn` in a transaction that first takes a transaction-level advisory lock named `lock`,
   * so replicas doing the same work run one after another.
   */
  withLock<T>(lock: string, fn: (store: PkiStore) => Promise<T>): Promise<T>;
}

/** Creates the store over a schema-bound Kysely (`createDb<PkiDb>(conn, schema)`). */
export function createStore(db: Kysely<PkiDb>): PkiStore {
  return {
    async ensureScryptSalt(salt) {
      await db.insertInto('key_encryption').values({ scrypt_salt: salt }).onConflict((oc) => oc.column('id').doNothing()).execute();
      const row = await db.selectFrom('key_encryption').select('scrypt_salt').executeTakeFirstOrThrow();
      return Buffer.from(row.scrypt_salt);
    },
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
        return fn(createStore(trx));
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

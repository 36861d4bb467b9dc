/**
 * The pki schema as kysely sees it.
 */
import type { ColumnType, Generated, Kysely } from 'kysely';
import type { ExternalIdClaim } from '../domain/ca.js';
import type { CertificateKind } from '../domain/certificates.js';
import type { EnrollmentMethod } from '../domain/enrollment.js';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string | undefined, string>;

export interface ControllerCertificatesTable {
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

export interface KeyEncryptionTable {
  id: Generated<boolean>;
  scrypt_salt: Buffer;
  created_at: ColumnType<Date, never, never>;
}

/** Row type of `enrollments`. */
export interface EnrollmentsTable {
  id: string;
  method: EnrollmentMethod;
  identity_id: string | null;
  edge_router_id: string | null;
  transit_router_id: string | null;
  ca_id: string | null;
  username: string | null;
  token_hash: string;
  jwt_encrypted: string;
  issued_at: Date;
  expires_at: Date;
  tags: Json<Record<string, unknown>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Row type of `cas`. */
export interface CasTable {
  id: string;
  name: string;
  fingerprint: string;
  cert_pem: string;
  is_verified: ColumnType<boolean, boolean | undefined, boolean>;
  verification_token: string;
  is_auth_enabled: boolean;
  is_auto_ca_enrollment_enabled: boolean;
  is_ott_ca_enrollment_enabled: boolean;
  identity_roles: string[];
  identity_name_format: string;
  external_id_claim: ColumnType<ExternalIdClaim | null, string | null, string | null>;
  tags: Json<Record<string, unknown>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The tables of the pki schema. */
export interface PkiDb {
  controller_certificates: ControllerCertificatesTable;
  key_encryption: KeyEncryptionTable;
  enrollments: EnrollmentsTable;
  cas: CasTable;
}

export type PkiKysely = Kysely<PkiDb>;

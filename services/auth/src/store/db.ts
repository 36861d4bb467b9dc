/**
 * The auth schema as kysely sees it.
 */
import type { ColumnType, Generated } from 'kysely';
import type { AuthenticatorMethod } from '../domain/authenticator.js';
import type { TargetToken } from '../domain/ext-jwt-signer.js';

type Json = ColumnType<Record<string, unknown>, string | undefined, string>;
type Timestamp = ColumnType<Date, Date | undefined, Date>;

/** What a revocation names: a JWT id, every API session of an identity, or one API session. */
export type RevocationType = 'JTI' | 'IDENTITY' | 'API_SESSION';

/** Row type of `authenticators`. */
export interface AuthenticatorsTable {
  id: string;
  identity_id: string;
  method: AuthenticatorMethod;
  username: string | null;
  password_hash: string | null;
  fingerprint: string | null;
  cert_pem: string | null;
  failed_attempts: Generated<number>;
  is_extend_requested: Generated<boolean>;
  is_key_roll_requested: Generated<boolean>;
  extend_requested_at: Generated<Date | null>;
  unverified_cert_pem: Generated<string | null>;
  unverified_fingerprint: Generated<string | null>;
  is_issued_by_network: Generated<boolean | null>;
  locked_until: Generated<Date | null>;
  tags: Generated<Json>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Row type of `api_sessions`. */
export interface ApiSessionsTable {
  id: string;
  token_hash: string;
  identity_id: string;
  authenticator_id: string;
  config_types: string[];
  ip_address: string;
  is_mfa_required: boolean;
  is_mfa_complete: boolean;
  mfa_failed_attempts: Generated<number>;
  is_cert_extendable: Generated<boolean>;
  last_activity_at: Timestamp;
  tags: Generated<Json>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Row type of `api_session_certificates`. */
export interface ApiSessionCertificatesTable {
  id: string;
  api_session_id: string;
  subject: string;
  fingerprint: string;
  valid_from: Date;
  valid_to: Date;
  cert_pem: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** Row type of `mfas`. */
export interface MfasTable {
  id: string;
  identity_id: string;
  is_verified: Generated<boolean>;
  secret_sealed: string;
  recovery_codes_sealed: string;
  // bigint comes back from pg as a string
  last_totp_step: ColumnType<string | null, number | null | undefined, number | null>;
  tags: Generated<Json>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Row type of `mfa_recovery_codes`. */
export interface MfaRecoveryCodesTable {
  mfa_id: string;
  code_hash: string;
}

/** Row type of `totp_tokens`. */
export interface TotpTokensTable {
  token_hash: string;
  api_session_id: string;
  issued_at: Timestamp;
}

/** Row type of `key_encryption`. */
export interface KeyEncryptionTable {
  id: Generated<boolean>;
  scrypt_salt: Buffer;
}

/** Row type of `auth_policies`. */
export interface AuthPoliciesTable {
  id: string;
  name: string;
  primary_cert_allowed: boolean;
  primary_cert_allow_expired_certs: boolean;
  primary_ext_jwt_allowed: boolean;
  primary_ext_jwt_allowed_signers: string[];
  primary_updb_allowed: boolean;
  primary_updb_min_password_length: number;
  primary_updb_require_mixed_case: boolean;
  primary_updb_require_number_char: boolean;
  primary_updb_require_special_char: boolean;
  primary_updb_max_attempts: number;
  primary_updb_lockout_duration_minutes: number;
  secondary_require_totp: boolean;
  secondary_require_ext_jwt_signer: string | null;
  tags: Json;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Row type of `external_jwt_signers`. */
export interface ExternalJwtSignersTable {
  id: string;
  name: string;
  cert_pem: string | null;
  jwks_endpoint: string | null;
  kid: string | null;
  issuer: string;
  audience: string;
  claims_property: string;
  use_external_id: boolean;
  external_auth_url: string | null;
  client_id: string | null;
  scopes: string[];
  target_token: TargetToken;
  enabled: boolean;
  enroll_to_cert_enabled: boolean;
  enroll_to_token_enabled: boolean;
  enroll_auth_policy_id: string;
  enroll_name_claims_selector: string;
  enroll_attribute_claims_selector: string;
  fingerprint: string | null;
  common_name: string | null;
  not_before: Date | null;
  not_after: Date | null;
  tags: Json;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Row type of `revocations`. */
export interface RevocationsTable {
  id: string;
  type: RevocationType;
  tags: ColumnType<Record<string, unknown>, string | undefined, string>;
  expires_at: Date;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The `identities` table of the auth schema. */
export interface IdentitiesTable {
  id: string;
  name: string;
  type_id: string;
  is_admin: boolean;
  is_default_admin: boolean;
  disabled: boolean;
  disabled_until: Date | null;
  auth_policy_id: string;
  external_id: string | null;
  permissions: string[];
  role_attributes: string[];
  deleted: boolean;
  updated_at: Date;
  seen_at: Date | string;
}

/** The tables of the auth schema. */
export interface AuthDb {
  authenticators: AuthenticatorsTable;
  api_sessions: ApiSessionsTable;
  external_jwt_signers: ExternalJwtSignersTable;
  revocations: RevocationsTable;
  mfas: MfasTable;
  mfa_recovery_codes: MfaRecoveryCodesTable;
  totp_tokens: TotpTokensTable;
  key_encryption: KeyEncryptionTable;
  auth_policies: AuthPoliciesTable;
  api_session_certificates: ApiSessionCertificatesTable;
  identities: IdentitiesTable;
}

/**
 * The session schema as kysely sees it.
 */
import type { ColumnType, Generated, Kysely } from 'kysely';
import type { PolicyFailure } from '../domain/posture.js';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type TagsColumn = ColumnType<Record<string, unknown>, string, string>;

export interface ControllersTable {
  id: string;
  name: string;
  api_address: string;
  cert_pem: string;
  is_online: boolean;
  last_joined_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface IntegrityRunsTable {
  id: boolean;
  running: boolean;
  fix: boolean;
  started_at: Date | null;
  ended_at: Date | null;
  error: string;
  results: unknown;
}

export interface SessionsTable {
  id: string;
  token: string;
  api_session_id: string;
  identity_id: string;
  service_id: string;
  service_name: string;
  type: string;
  service_policy_ids: string[];
  tags: TagsColumn;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface FailedServiceRequestsTable {
  id: Generated<string>;
  identity_id: string;
  api_session_id: string;
  service_id: string;
  service_name: string;
  session_type: string;
  policy_failures: ColumnType<PolicyFailure[], string, string>;
  failed_at: Timestamp;
}

export interface ServiceMarkersTable {
  identity_id: string;
  digest: string;
  changed_at: Generated<Date>;
}

export interface PostureDataTable {
  api_session_id: string;
  identity_id: string;
  data: unknown;
  updated_at: Date;
}

export interface TerminatorsTable {
  id: string;
  service_id: string;
  router_id: string;
  binding: string;
  address: string;
  identity: string;
  identity_secret: string | null;
  cost: number;
  precedence: string;
  saved_precedence: Generated<string | null>;
  host_id: Generated<string>;
  tags: TagsColumn;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ControllerSettingsTable {
  id: string;
  oidc_redirect_uris: string[] | null;
  oidc_post_logout_uris: string[] | null;
  tags: TagsColumn;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The session schema as kysely sees it. */
export interface SessionDb {
  controllers: ControllersTable;
  integrity_runs: IntegrityRunsTable;
  sessions: SessionsTable;
  failed_service_requests: FailedServiceRequestsTable;
  service_markers: ServiceMarkersTable;
  posture_data: PostureDataTable;
  terminators: TerminatorsTable;
  controller_settings: ControllerSettingsTable;
}

export type SessionKysely = Kysely<SessionDb>;

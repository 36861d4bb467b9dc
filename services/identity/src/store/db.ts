/**
 * The identity schema as kysely sees it: the tables every store of this service reads and writes.
 */
import type { ColumnType, Generated } from 'kysely';
import type { Json } from '../domain/identity.js';
import type { RouterKind } from '../domain/router.js';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface IdentitiesTable {
  id: string;
  name: string;
  type_id: string;
  is_admin: boolean;
  is_default_admin: Generated<boolean>;
  role_attributes: string[];
  tags: Json;
  app_data: Json;
  default_hosting_cost: number;
  default_hosting_precedence: string;
  service_hosting_costs: Record<string, number>;
  service_hosting_precedences: Record<string, string>;
  external_id: string | null;
  auth_policy_id: string;
  permissions: string[];
  disabled: Generated<boolean>;
  disabled_at: Date | null;
  disabled_until: Date | null;
  env_info: Generated<Json>;
  trace_id: Generated<string | null>;
  trace_until: Generated<Date | null>;
  trace_channels: Generated<string[]>;
  sdk_info: Generated<Json>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface IdentityTypesTable {
  id: string;
  name: string;
  tags: Json;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RoutersTable {
  id: string;
  kind: RouterKind;
  name: string;
  role_attributes: string[];
  tags: Json;
  app_data: Json;
  cost: number;
  no_traversal: boolean;
  disabled: boolean;
  is_tunneler_enabled: boolean;
  is_verified: ColumnType<boolean, boolean | undefined, boolean>;
  fingerprint: string | null;
  cert_pem: string | null;
  unverified_fingerprint: string | null;
  unverified_cert_pem: string | null;
  hostname: ColumnType<string, string | undefined, string>;
  supported_protocols: ColumnType<Json, string | undefined, string>;
  ctrl_chan_listeners: Json;
  configs: ColumnType<string[], string[] | undefined, string[]>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** An identity's own config of a type for a service. */
export interface IdentityServiceConfigsTable {
  identity_id: string;
  service_id: string;
  config_type_id: string;
  config_id: string;
}

/** The identity schema as kysely sees it. */
export interface IdentityDb {
  identities: IdentitiesTable;
  identity_types: IdentityTypesTable;
  routers: RoutersTable;
  identity_service_configs: IdentityServiceConfigsTable;
}

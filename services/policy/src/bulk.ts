/**
 * Bulk import of services and the three policy kinds straight into the policy service's schema,
 * for loading large datasets (benchmarks, seeding a new network) while the controller is
 * stopped. Rows are validated as the API validates them; roles are `#attribute`, `#all` or
 * `@id` (names are not resolved here); services carry no configs; no events are published.
 */
import { vacuumAnalyzeTables, createDb, type DbConnection } from '@edge/db';
import { atPath } from '@edge/errors';
import { newId } from '@edge/ids';
import type { RoleSemantic } from '@edge/roles';
import { EDGE_ROUTER_POLICY, SERVICE_EDGE_ROUTER_POLICY, SERVICE_POLICY, validatePolicy, type PolicyInput, type PolicyKind, type RoleField } from './domain/policy.js';
import { DEFAULT_TERMINATOR_STRATEGY, validateService, type ServiceInput } from './domain/service.js';
import type { PolicyDb } from './store/db.js';
import { createPolicyStores } from './store/index.js';

/** A service to import. */
export interface BulkService {
  id?: string;
  name: string;
  roleAttributes?: string[];
  encryptionRequired?: boolean;
  tags?: Record<string, unknown>;
}

/** A policy of any kind to import: the role fields of its kind, `type` for service policies. */
export type BulkPolicy = { id?: string; name: string; semantic?: RoleSemantic; type?: 'Dial' | 'Bind'; tags?: Record<string, unknown> }
  & Partial<Record<RoleField, string[]>>;

export interface PolicyData {
  services?: readonly BulkService[];
  servicePolicies?: readonly BulkPolicy[];
  edgeRouterPolicies?: readonly BulkPolicy[];
  serviceEdgeRouterPolicies?: readonly BulkPolicy[];
}

type Rows<T> = Array<{ id: string; input: T }>;

function policies(kind: PolicyKind, list: readonly BulkPolicy[] | undefined, path: string): Rows<PolicyInput> {
  return (list ?? []).map((p, i) => atPath(`${path}[${i}]`, () => {
    const input: PolicyInput = {
      name: p.name, semantic: p.semantic ?? 'AllOf', tags: p.tags ?? {}, roles: Object.fromEntries(kind.roleFields.map((f) => [f, p[f] ?? []])),
      ...(kind.typed ? { type: p.type ?? 'Dial' } : {}),
    };
    validatePolicy(kind, input);
    return { id: p.id ?? newId(), input };
  }));
}

/** A validated import: the ids given or made per list (in input order), written by `write`. */
export interface PolicyImport {
  ids: Record<keyof PolicyData, string[]>;
  write(conn: DbConnection, schema: string): Promise<void>;
}

/** Validates every list (a bad row is a field error under `services[i]`, `servicePolicies[i]`…). */
export function planPolicyImport(data: PolicyData): PolicyImport {
  const services: Rows<ServiceInput> = (data.services ?? []).map((s, i) => atPath(`services[${i}]`, () => {
    const input: ServiceInput = {
      name: s.name, encryptionRequired: s.encryptionRequired ?? true, maxIdleTimeMillis: 0, terminatorStrategy: DEFAULT_TERMINATOR_STRATEGY,
      roleAttributes: s.roleAttributes ?? [], configs: [], tags: s.tags ?? {},
    };
    validateService(input);
    return { id: s.id ?? newId(), input };
  }));
  const sp = policies(SERVICE_POLICY, data.servicePolicies, 'servicePolicies');
  const erp = policies(EDGE_ROUTER_POLICY, data.edgeRouterPolicies, 'edgeRouterPolicies');
  const serp = policies(SERVICE_EDGE_ROUTER_POLICY, data.serviceEdgeRouterPolicies, 'serviceEdgeRouterPolicies');
  const ids = <T>(rows: Rows<T>) => rows.map((r) => r.id);
  return {
    ids: { services: ids(services), servicePolicies: ids(sp), edgeRouterPolicies: ids(erp), serviceEdgeRouterPolicies: ids(serp) },
    async write(conn, schema) {
      const db = createDb<PolicyDb>(conn, schema);
      const stores = createPolicyStores(db);
      await stores.services.insertMany(services);
      await stores.servicePolicies.insertMany(sp);
      await stores.edgeRouterPolicies.insertMany(erp);
      await stores.serviceEdgeRouterPolicies.insertMany(serp);
      await vacuumAnalyzeTables(db, schema, ['services', 'service_policies', 'edge_router_policies', 'service_edge_router_policies']);
      await db.destroy();
    },
  };
}

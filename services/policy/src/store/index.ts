/**
 * Every store of the policy service over its own schema.
 */
import { createAccessStore } from './access.js';
import { createAccessPartsStore } from './access-parts.js';
import { createConfigStore } from './config.js';
import { createConfigTypeStore } from './config-type.js';
import type { PolicyKysely } from './db.js';
import { createEvaluationStore } from './evaluation.js';
import { createIntegrityStore } from './integrity.js';
import { createPolicyStore, EDGE_ROUTER_POLICY_TABLE, SERVICE_EDGE_ROUTER_POLICY_TABLE, SERVICE_POLICY_TABLE } from './policy.js';
import { createPostureCheckStore } from './posture-check.js';
import { createServiceStore } from './service.js';

export function createPolicyStores(db: PolicyKysely) {
  return {
    configTypes: createConfigTypeStore(db),
    configs: createConfigStore(db),
    services: createServiceStore(db),
    servicePolicies: createPolicyStore(db, SERVICE_POLICY_TABLE),
    edgeRouterPolicies: createPolicyStore(db, EDGE_ROUTER_POLICY_TABLE),
    serviceEdgeRouterPolicies: createPolicyStore(db, SERVICE_EDGE_ROUTER_POLICY_TABLE),
    postureChecks: createPostureCheckStore(db),
    evaluation: createEvaluationStore(db),
    access: createAccessStore(db),
    accessParts: createAccessPartsStore(db),
    integrity: createIntegrityStore(db),
  };
}

export type PolicyStores = ReturnType<typeof createPolicyStores>;
export type { PolicyDb } from './db.js';

/**
 * gRPC handlers of the policy service: proto → domain → store → proto, one file per entity.
 */
import type { AsyncHandlers } from '@edge/rpc';
import type { PolicyServiceHandlers } from '@edge/proto';
import { createAccessHandlers } from './access.js';
import type { HandlerDeps } from './common.js';
import { createConfigHandlers } from './config.js';
import { createEvaluationHandlers } from './evaluation.js';
import { createPolicyHandlers as createPolicyKindHandlers } from './policy.js';
import { createPostureCheckHandlers } from './posture-check.js';
import { createServiceHandlers } from './service.js';

export { createIdentityDirectory, type IdentityDirectory } from './identities.js';
export type { HandlerDeps } from './common.js';

/** Every handler of PolicyService but the integrity check (wired with the service). */
export function createPolicyHandlers(deps: HandlerDeps): Omit<AsyncHandlers<PolicyServiceHandlers>, 'CheckIntegrity'> {
  return {
    ...createConfigHandlers(deps),
    ...createServiceHandlers(deps),
    ...createPolicyKindHandlers(deps),
    ...createPostureCheckHandlers(deps),
    ...createEvaluationHandlers(deps),
    ...createAccessHandlers(deps),
  } as Omit<AsyncHandlers<PolicyServiceHandlers>, 'CheckIntegrity'>;
}

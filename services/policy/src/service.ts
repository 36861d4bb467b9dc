/**
 * The policy service: services, configs, config types, policies and posture checks.
 */
import { fileURLToPath } from 'node:url';
import { createGrpcService, type EdgeService, type ServiceContext } from '@edge/lifecycle';
import { contracts, type PolicyServiceHandlers } from '@edge/proto';
import { createPolicyStore, type PolicyDb } from './store.js';
import { createPolicyHandlers } from './grpc.js';

const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Creates the policy service; nothing happens until start(). */
export function createPolicyService(ctx: ServiceContext): EdgeService {
  return createGrpcService<PolicyDb>(ctx, 'policy', MIGRATIONS, async ({ db, server }) => {
    server.add<PolicyServiceHandlers>(contracts.policy(), createPolicyHandlers(createPolicyStore(db)));
  });
}

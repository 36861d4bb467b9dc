/**
 * The policy service: services, configs, config types, policies and posture checks.
 */
import { fileURLToPath } from 'node:url';
import { createGrpcService, type EdgeService, type ServiceContext } from '@edge/lifecycle';
import { contracts, type PolicyServiceHandlers } from '@edge/proto';
import { createRpcClient } from '@edge/rpc';
import { createPolicyStores, type PolicyDb } from './store/index.js';
import { createIdentityDirectory, createPolicyHandlers } from './grpc/index.js';
import { createPolicyEvents } from './events.js';

const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Creates the policy service; nothing happens until start(). */
export function createPolicyService(ctx: ServiceContext): EdgeService {
  return createGrpcService<PolicyDb>(ctx, 'policy', MIGRATIONS, async ({ db, server }) => {
    const identity = createRpcClient(contracts.identity(), ctx.config.grpc.targets.identity, { deadlineMs: ctx.config.grpc.deadlineMs });
    server.add<PolicyServiceHandlers>(contracts.policy(), createPolicyHandlers({
      stores: createPolicyStores(db),
      events: createPolicyEvents(ctx.bus),
      identities: createIdentityDirectory(identity),
    }));
    return async () => identity.close();
  });
}

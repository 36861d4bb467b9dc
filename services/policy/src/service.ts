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
import { createIntegrityCheck } from './integrity.js';
import { createIntegrityStore } from './store/integrity.js';

const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Creates the policy service; nothing happens until start(). */
export function createPolicyService(ctx: ServiceContext): EdgeService {
  return createGrpcService<PolicyDb>(ctx, 'policy', MIGRATIONS, async ({ db, server }) => {
    const identity = createRpcClient(contracts.identity(), ctx.config.grpc.targets.identity, { deadlineMs: ctx.config.grpc.deadlineMs });
    const events = createPolicyEvents(ctx.bus);
    const identities = createIdentityDirectory(identity);
    const checkIntegrity = createIntegrityCheck(createIntegrityStore(db), identities, events);
    server.add<PolicyServiceHandlers>(contracts.policy(), {
      ...createPolicyHandlers({ stores: createPolicyStores(db), events, identities }),
      CheckIntegrity: async (req) => ({ issues: await checkIntegrity(req.fix) }),
    });
    return async () => identity.close();
  });
}

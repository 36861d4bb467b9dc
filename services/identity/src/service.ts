/**
 * The identity service: identities and identity types in their own schema, behind gRPC.
 */
import { fileURLToPath } from 'node:url';
import { createGrpcService, createServiceEvents, type EdgeService, type ServiceContext } from '@edge/lifecycle';
import { contracts, type IdentityServiceHandlers } from '@edge/proto';
import { createRpcClient } from '@edge/rpc';
import { createIdentityStore, type IdentityDb } from './store.js';
import { createIdentityEvents } from './events.js';
import { createIdentityHandlers } from './grpc.js';
import { createRouterHandlers } from './router-grpc.js';
import { createRouterStore } from './router-store.js';
import { createServiceConfigHandlers } from './service-config-grpc.js';
import { createServiceConfigStore } from './service-config-store.js';
import { createIntegrityCheck } from './integrity.js';
import { createPolicyLookup } from './policy-lookup.js';
import { startPolicyConsumers } from './policy-events.js';
import { startAuthConsumers } from './auth-events.js';

const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Creates the identity service; nothing happens until start(). */
export function createIdentityService(ctx: ServiceContext): EdgeService {
  return createGrpcService<IdentityDb>(ctx, 'identity', MIGRATIONS, async ({ db, server }) => {
    const plumbing = createServiceEvents(ctx, db, 'identity');
    const events = createIdentityEvents(plumbing.outbox);
    const store = createIdentityStore(db, events);
    const policy = createRpcClient(contracts.policy(), ctx.config.grpc.targets.policy, { deadlineMs: ctx.config.grpc.deadlineMs });
    const serviceConfigs = createServiceConfigStore(db);
    const routers = createRouterStore(db, events);
    const checkIntegrity = createIntegrityCheck(serviceConfigs, routers, createPolicyLookup(policy));
    server.add<IdentityServiceHandlers>(contracts.identity(), {
      ...createIdentityHandlers(store),
      ...createRouterHandlers(routers),
      ...createServiceConfigHandlers(serviceConfigs),
      CheckIntegrity: async (req) => ({ issues: await checkIntegrity(req.fix) }),
    });
    const consumers = [
      ...(await startPolicyConsumers(plumbing.bus, { serviceConfigs, routers, log: ctx.log })),
      ...(await startAuthConsumers(plumbing.bus, store, ctx.log)),
    ];
    // What a lost config or service deletion left: the integrity check's repair, periodically.
    plumbing.reconcile('dangling-configs', async () => {
      await checkIntegrity(true);
      return undefined;
    });
    plumbing.start();
    return async () => {
      await Promise.all(consumers.map((c) => c.unsubscribe()));
      await plumbing.stop();
      policy.close();
    };
  });
}

/**
 * The identity service: identities and identity types in their own schema, behind gRPC.
 */
import { fileURLToPath } from 'node:url';
import { createGrpcService, createServiceEvents, type EdgeService, type ServiceContext } from '@edge/lifecycle';
import { contracts, type IdentityServiceHandlers } from '@edge/proto';
import { createIdentityStores, type IdentityDb } from './store/index.js';
import { createIdentityEvents } from './events.js';
import { createIdentityHandlers } from './grpc/index.js';
import { createConfigReferences } from './integrity.js';
import { startPolicyConsumers } from './policy-events.js';
import { startAuthConsumers } from './auth-events.js';

const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Creates the identity service; nothing happens until start(). */
export function createIdentityService(ctx: ServiceContext): EdgeService {
  return createGrpcService<IdentityDb>(ctx, 'identity', MIGRATIONS, async ({ db, server }) => {
    const plumbing = createServiceEvents(ctx, db, 'identity');
    const events = createIdentityEvents(plumbing.outbox);
    const stores = createIdentityStores(db, events);
    const { serviceConfigs, routers } = stores;
    const references = createConfigReferences(serviceConfigs, routers);
    server.add<IdentityServiceHandlers>(contracts.identity(), {
      ...createIdentityHandlers(stores),
      ListConfigReferences: async () => references.list(),
      RemoveConfigReferences: async (req) => ({
        issues: await references.removeMissing(new Set(req.missingServiceIds), new Set(req.missingConfigIds), req.fix),
      }),
    });
    const consumers = [
      ...(await startPolicyConsumers(plumbing.bus, { serviceConfigs, routers, log: ctx.log })),
      ...(await startAuthConsumers(plumbing.bus, stores.identities, ctx.log)),
    ];
    plumbing.start();
    return async () => {
      await Promise.all(consumers.map((c) => c.unsubscribe()));
      await plumbing.stop();
    };
  });
}

/**
 * The policy service: services, configs, config types, policies and posture checks.
 */
import { fileURLToPath } from 'node:url';
import { createGrpcService, runInBackground, type EdgeService, type ServiceContext } from '@edge/lifecycle';
import { contracts, type PolicyServiceHandlers, type policy } from '@edge/proto';

type ListServicesResponse = policy.ListServicesResponse;
import { createRpcClient } from '@edge/rpc';
import { createPolicyStores, type PolicyDb } from './store/index.js';
import { createIdentityDirectory, createPolicyHandlers } from './grpc/index.js';
import { createPolicyEvents } from './events.js';
import { createEvaluationCache } from './evaluation-cache.js';
import { createIntegrityCheck } from './integrity.js';
import { createIntegrityStore } from './store/integrity.js';
import { createSystemPolicies } from './system-policies.js';

const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Creates the policy service; nothing happens until start(). */
export function createPolicyService(ctx: ServiceContext): EdgeService {
  return createGrpcService<PolicyDb>(ctx, 'policy', MIGRATIONS, async ({ db, server }) => {
    const identity = createRpcClient(contracts.identity(), ctx.config.grpc.targets.identity, { deadlineMs: ctx.config.grpc.deadlineMs });
    // Bounded by the services the cached pages hold (a few hundred bytes each), not by pages.
    const serviceLists = createEvaluationCache<ListServicesResponse>({ ttlMs: ctx.config.evaluationCacheTtlMs, maxWeight: 200_000, weigh: (r) => r.services?.length ?? 0 });
    const events = createPolicyEvents(ctx.bus, () => serviceLists.invalidate());
    // Changes made through other replicas (this one's own come back too: harmless).
    const changes = await ctx.bus.subscribe('edge.policy.>', async () => serviceLists.invalidate());
    const identities = createIdentityDirectory(identity);
    const checkIntegrity = createIntegrityCheck(createIntegrityStore(db), identities, events);
    const stores = createPolicyStores(db);
    server.add<PolicyServiceHandlers>(contracts.policy(), {
      ...createPolicyHandlers({ stores, events, identities, serviceLists }),
      CheckIntegrity: async (req) => ({ issues: await checkIntegrity(req.fix) }),
    });
    const system = createSystemPolicies(stores.edgeRouterPolicies, identity, events, ctx.log);
    const follow = await system.follow(ctx.bus);
    // The identity service may start after this one: catch up in the background.
    const cancelSweep = runInBackground(() => system.sweep(), { what: 'system edge router policy sweep', log: ctx.log });
    return async () => {
      cancelSweep();
      await follow.unsubscribe();
      await changes.unsubscribe();
      identity.close();
    };
  });
}

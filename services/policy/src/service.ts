/**
 * The policy service: services, configs, config types, policies and posture checks.
 */
import { fileURLToPath } from 'node:url';
import { POLICY_CHANGES } from '@edge/events';
import { createGrpcService, createServiceEvents, runInBackground, type EdgeService, type ServiceContext } from '@edge/lifecycle';
import { contracts, type PolicyServiceHandlers, type policy } from '@edge/proto';

type ListServicesResponse = policy.ListServicesResponse;
import { createBatcher, peerClient } from '@edge/rpc';
import { createPolicyStores, type PolicyDb } from './store/index.js';
import { createIdentityDirectory, createPolicyHandlers } from './grpc/index.js';
import { createPolicyEvents } from './events.js';
import { createAccessReader, ACCESS_PARTS_KEPT } from './access-reader.js';
import { createEvaluationCache } from './evaluation-cache.js';
import { createIntegrityCheck } from './integrity.js';
import { createSystemPolicies } from './system-policies.js';
import { createEdgeRouterModel } from './store/edge-router-model.js';
import { createEdgeRouterReconcile, followEdgeRouters, withEdgeRouterModel } from './edge-router-model.js';

const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Creates the policy service; nothing happens until start(). */
export function createPolicyService(ctx: ServiceContext): EdgeService {
  return createGrpcService<PolicyDb>(ctx, 'policy', MIGRATIONS, async ({ db, server, signal }) => {
    const identity = peerClient(ctx.config.grpc, 'identity');
    const stores = createPolicyStores(db);
    // One read of the tables' version for the entries whose time ran out in the same turn.
    const version = createBatcher(async (asks: unknown[]) => {
      const v = await stores.evaluation.version();
      return asks.map(() => v);
    });
    const listVersion = () => version(undefined);
    // Bounded by the services the cached pages hold (a few hundred bytes each), not by pages.
    const serviceLists = createEvaluationCache<ListServicesResponse>({
      ttlMs: ctx.config.evaluationCacheTtlMs, maxWeight: 200_000, weigh: (r) => r.services?.length ?? 0, version: listVersion,
    });
    const serviceDigests = createEvaluationCache<policy.ServiceListDigest>({ ttlMs: ctx.config.evaluationCacheTtlMs, maxWeight: 10_000, version: listVersion });
    const accessReader = createAccessReader(stores.accessParts, { log: ctx.log });
    const invalidate = () => {
      serviceLists.invalidate();
      serviceDigests.invalidate();
      // The parts the change made stale are read ahead once the tables settle.
      accessReader.changed().catch((err: unknown) => ctx.log.warn({ err }, 'reading the access version failed'));
    };
    const plumbing = createServiceEvents(ctx, db, 'policy');
    const events = createPolicyEvents(plumbing.outbox, invalidate);
    // Changes made through other replicas (this one's own come back too: harmless).
    const changes = await ctx.bus.subscribe(POLICY_CHANGES, async () => invalidate());
    // The edge routers policies select are matched in the read model of edge routers.
    const edgeRouters = createEdgeRouterModel(db);
    const identities = withEdgeRouterModel(createIdentityDirectory(identity), edgeRouters);
    const checkIntegrity = createIntegrityCheck(stores.integrity, identities, events);
    server.add<PolicyServiceHandlers>(contracts.policy(), {
      ...createPolicyHandlers({ stores, events, identities, edgeRouters, serviceLists, serviceDigests, accessReader }),
      CheckIntegrity: async (req) => ({ issues: await checkIntegrity(req.fix) }),
    });
    const system = createSystemPolicies(stores.edgeRouterPolicies, identity, events, ctx.log);
    const follow = await system.follow(plumbing.bus);
    // The identity service may start after this one: catch up in the background, and again
    // periodically for router events lost meanwhile.
    const cancelSweep = runInBackground(() => system.sweep(), { what: 'system edge router policy sweep', log: ctx.log });
    plumbing.reconcile('system-edge-router-policies', async () => {
      await system.sweep();
      return undefined;
    });
    const followRouters = await followEdgeRouters(plumbing.bus, edgeRouters, ctx.log);
    // Filled at start (in the background: the identity service may start later), repaired periodically.
    const routerFill = plumbing.reconcile('edge-router-model', createEdgeRouterReconcile(edgeRouters, identity), 30_000);
    const cancelFill = runInBackground(async () => { await routerFill.runNow({ toEnd: true, signal }); }, { what: 'filling the edge router read model', log: ctx.log });
    // Every service's part is read ahead, so the first accesses after a start find them kept.
    const cancelWarm = runInBackground(async () => accessReader.warm(await stores.services.ids(ACCESS_PARTS_KEPT)), { what: 'reading service access parts ahead', log: ctx.log });
    plumbing.start();
    return async () => {
      cancelWarm();
      accessReader.stop();
      cancelSweep();
      cancelFill();
      await Promise.all(followRouters.map((s) => s.unsubscribe()));
      await follow.unsubscribe();
      await changes.unsubscribe();
      await plumbing.stop();
      identity.close();
    };
  });
}

/**
 * The session service: sessions, posture data, terminators, the controller registry and the
 * controller settings.
 * start: migrate → database → peers → consumers → start-up sweep → gRPC → serving; stop in
 * reverse. A stopped service can be started again (a new server each time).
 */
import { fileURLToPath } from 'node:url';
import { createHeardChanges } from '@edge/bus';
import { EDGE_ROUTER_CHANGES, POLICY_CHANGES } from '@edge/events';
import { createGrpcService, createServiceEvents, type EdgeService, type ServiceContext } from '@edge/lifecycle';
import { contracts, type SessionServiceHandlers } from '@edge/proto';
import { peerClients } from '@edge/rpc';
import { createSessionStores, type SessionDb } from './store/index.js';
import { createSessionHandlers } from './grpc/index.js';
import { createSessionPeers } from './peers/index.js';
import { createConfigReferenceCheck } from './config-references.js';
import { createSessions } from './sessions.js';
import { createSessionReconcile, scheduleSweep, staleSessions, startSessionConsumers, sweepSessions } from './events.js';
import { createReevaluation } from './reevaluation.js';
import { createReevaluationQueue } from './reevaluation-queue.js';
import { createTerminators } from './terminators.js';
import { createTerminatorReconcile, staleTerminators, startTerminatorConsumers } from './terminator-events.js';
import { createIntegrityRuns } from './integrity.js';
import { createSnapshot } from './snapshot.js';
import { createServiceUpdates } from './service-updates.js';
import { createPostureEnforcement } from './posture-enforcement.js';
import { createControllerSettings } from './controller-settings.js';

const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Creates the session service; nothing happens until start(). */
export function createSessionService(ctx: ServiceContext): EdgeService {
  const { config } = ctx;
  return createGrpcService<SessionDb>(ctx, 'session', MIGRATIONS, async ({ db, server, log, defer }) => {
    defer(() => db.destroy());

    const clients = peerClients(config.grpc, ['identity', 'policy', 'auth']);
    // Integrity runs ask each owner in turn and may take a while.
    const checkers = peerClients(config.grpc, ['auth', 'pki', 'identity', 'policy'], { deadlineMs: 120_000 });
    defer(() => checkers.close());
    defer(() => clients.close());
    // What the policy service answers of an access holds until it hears a change to what such an
    // answer reads: services, policies, posture checks (the policy service's) and edge routers
    // (the identity service's). An identity's role attributes are part of what it is held under.
    const accessChanges = createHeardChanges(ctx.bus, config.evaluationCacheTtlMs, [POLICY_CHANGES, EDGE_ROUTER_CHANGES]);
    await accessChanges.start();
    defer(() => accessChanges.stop());
    const peers = createSessionPeers(clients, accessChanges);
    const stores = createSessionStores(db);
    const { sessions: records, posture, terminators: terminatorRecords } = stores;
    // What the endpoint reported, plus MFA completed on the API session (as OpenZiti's MFA check).
    const postureData = async (apiSessionId: string) => {
      const [data, passedAt] = await Promise.all([posture.get(apiSessionId), peers.mfaPassedAt(apiSessionId)]);
      return passedAt ? { ...data, mfa: { passedAt } } : data;
    };
    const sessions = createSessions({ records, peers, postureData, log });
    const reevaluation = createReevaluation({ peers, reported: (ids) => posture.getMany(ids) });
    const enforcement = createPostureEnforcement({ records, reevaluation, log });

    const terminators = createTerminators({ records: terminatorRecords, peers, log });

    const plumbing = createServiceEvents(ctx, db, 'session');
    defer(() => plumbing.stop());
    // A change is judged again once every creation that checked its access before it has written:
    // an access is held at most the evaluation cache's time, a creation lasts at most a deadline.
    const followUpMs = config.evaluationCacheTtlMs + config.grpc.deadlineMs;
    const queue = createReevaluationQueue({ records, reevaluation, peers, log, followUpMs });
    defer(() => queue.stop());
    const subscriptions = [
      ...(await startSessionConsumers(plumbing.bus, records, queue, log, {
        apiSessionEnded: (id) => posture.deleteOf(id),
        serviceDeleted: (id) => terminatorRecords.deleteOf({ serviceId: id }),
      })),
      ...(await startTerminatorConsumers(plumbing.bus, terminatorRecords, log)),
    ];
    defer(() => Promise.all(subscriptions.map((s) => s.unsubscribe())));
    // React, then reconcile: at start-up (the peers may start after this service, so in the
    // background) and periodically, a bounded number of pages each time.
    const reconcileSessions = createSessionReconcile(records, reevaluation, log);
    const reconcileTerminators = createTerminatorReconcile(terminatorRecords, peers, log);
    defer(scheduleSweep(async () => {
      await sweepSessions(reconcileSessions);
      await sweepSessions(reconcileTerminators);
    }, log));
    plumbing.reconcile('sessions', reconcileSessions);
    plumbing.reconcile('terminators', reconcileTerminators);

    // The session service's own check: sessions whose API session, identity or access is gone,
    // terminators whose service or router is gone.
    const ownCheck = async (fix: boolean) => {
      const stale = await staleSessions(records, reevaluation, { apiSessions: true });
      const staleT = await staleTerminators(peers, await terminatorRecords.all());
      if (fix) {
        await records.deleteOf({ ids: stale.map((s) => s.id) });
        await terminatorRecords.deleteOf({ ids: staleT.map((t) => t.id) });
      }
      return [
        ...stale.map((s) => ({ description: `session: session ${s.id} remains although ${s.why}`, fixed: fix })),
        ...staleT.map((t) => ({ description: `terminator: terminator ${t.id} remains although ${t.why}`, fixed: fix })),
      ];
    };
    // The identity service's references to services and configs are checked against the policy
    // service here (neither owner calls the other), and repaired periodically.
    const configReferences = createConfigReferenceCheck(checkers.identity, createSessionPeers(checkers));
    plumbing.reconcile('dangling-configs', async () => {
      await configReferences(true);
      return undefined;
    });
    const integrity = createIntegrityRuns(stores.integrity, [
      ...[checkers.auth, checkers.pki, checkers.policy].map((c) => async (fix: boolean) => (await c.checkIntegrity({ fix })).issues),
      configReferences,
      ownCheck,
    ], log);

    const settings = createControllerSettings({ records: stores.controllerSettings, log });
    const observeServiceList = createServiceUpdates({ markers: stores.serviceMarkers, peers, postureData });
    server.add<SessionServiceHandlers>(contracts.session(), createSessionHandlers({
      stores, sessions, terminators, settings, observeServiceList, log,
      posture: { posture, peers, postureData, enforce: (id) => enforcement.enforce(id) },
      database: { integrity, createSnapshot: () => createSnapshot(config) },
    }));
  });
}

/**
 * The pki service: migrate → bootstrap the controller chain → consumers → gRPC → serving; stop
 * in reverse.
 */
import { fileURLToPath } from 'node:url';
import { schemaName } from '@edge/config';
import { createGrpcService, createServiceEvents, type EdgeService, type ServiceContext } from '@edge/lifecycle';
import { contracts, type PkiServiceHandlers } from '@edge/proto';
import { keepRenewed, peerClients } from '@edge/rpc';
import { resolveKek } from '@edge/key-encryption';
import { createCas } from './cas.js';
import { createControllerPki, type ControllerPki } from './controller-pki.js';
import { requiredServerNames } from './domain/server-hosts.js';
import { createEnrollments } from './enrollments.js';
import { createPkiEvents, scheduleOrphanSweep, startEnrollmentConsumers, sweepOrphans } from './events.js';
import { createPkiHandlers } from './grpc/index.js';
import { createIntegrityCheck } from './integrity.js';
import { createEnrollmentPeers } from './peers/index.js';
import { createRedeem } from './redeem.js';
import { issueOwnCertificate, JOIN_METHOD } from './service-certificates.js';
import { createPkiStores, type PkiDb } from './store/index.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations', import.meta.url));

/** Creates the pki service; nothing happens until `start()`. */
export function createPkiService(ctx: ServiceContext): EdgeService {
  const { config, mesh } = ctx;
  const schema = schemaName(config, 'pki');
  // Under internal mutual TLS, processes without a certificate yet may call the join RPC only.
  const serverOptions = { tls: mesh ?? null, openMethods: [JOIN_METHOD] };
  return createGrpcService<PkiDb>(ctx, 'pki', MIGRATIONS_DIR, async ({ db, server, log, defer }) => {
    defer(() => db.destroy());
    const plumbing = createServiceEvents(ctx, db, 'pki');
    plumbing.start();
    defer(() => plumbing.stop());
    const { bus } = plumbing;
    const stores = createPkiStores(db, createPkiEvents(plumbing.outbox));
    const kek = await resolveKek(config, (salt) => stores.keyEncryption.ensureScryptSalt(salt), log);
    const pki: ControllerPki = createControllerPki({
      store: stores.controllerCertificates, kek, names: requiredServerNames(config.http), lockName: `edge.pki.bootstrap:${schema}`, log,
    });
    await pki.ensure();
    // Internal mutual TLS: this service issues its own certificate, then others' (join RPC).
    if (mesh) {
      mesh.update(await issueOwnCertificate(pki));
      const stopRenewing = keepRenewed(mesh, () => issueOwnCertificate(pki), log);
      defer(async () => stopRenewing());
    }

    const clients = peerClients(config.grpc, ['identity', 'auth']);
    defer(async () => clients.close());
    const peers = createEnrollmentPeers(clients);
    const cas = createCas({ store: stores.cas, pki, advertisedAddress: config.http.advertisedAddress });
    const enrollments = createEnrollments({
      store: stores.enrollments, pki, peers, kek, advertisedAddress: config.http.advertisedAddress, durationMinutes: config.enrollmentDurationMinutes,
      caExists: async (id) => (await cas.find(id)) !== undefined,
    });
    const subscriptions = await startEnrollmentConsumers(bus, stores.enrollments, enrollments, log);
    defer(() => Promise.all(subscriptions.map((s) => s.unsubscribe())));
    // React, then reconcile: the identity service may start after this one, so in the background.
    defer(scheduleOrphanSweep(stores.enrollments, peers, log));
    // And periodically, for what a lost deletion event left while it runs.
    plumbing.reconcile('orphaned-enrollments', async () => {
      const removed = await sweepOrphans(stores.enrollments, peers);
      if (removed > 0) log.info({ removed }, 'removed the enrollments of deleted identities and routers');
      return undefined;
    });

    const checkIntegrity = createIntegrityCheck(stores.enrollments, peers);
    const redeem = createRedeem({ store: stores.enrollments, pki, peers, cas, log });

    server.add<PkiServiceHandlers>(contracts.pki(), createPkiHandlers({
      pki, cas, enrollments, redeem, peers, advertisedAddress: config.http.advertisedAddress,
      joinToken: mesh ? config.grpc.tls.joinToken : undefined, checkIntegrity, log,
    }));
  }, { server: serverOptions });
}

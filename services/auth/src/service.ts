/**
 * The auth service: authenticators, API sessions and MFA. Start: migrate → store → default
 * admin → consumers → expiry sweep → key-encryption key → listen → serving; stop in reverse.
 */
import { fileURLToPath } from 'node:url';
import type { Subscription } from '@edge/bus';
import { createGrpcService, createServiceEvents, type EdgeService, type ServiceContext } from '@edge/lifecycle';
import { resolveKek } from '@edge/key-encryption';
import type { Logger } from '@edge/logging';
import { contracts, type AuthServiceHandlers } from '@edge/proto';
import { peerClient } from '@edge/rpc';
import { createApiSessions, type ApiSessions } from './api-sessions.js';
import { createAuthPolicies } from './auth-policies.js';
import { createAuthenticate } from './authenticate.js';
import { bootstrapDefaultAdmin } from './bootstrap.js';
import { createAuthEvents, startConsumers } from './events.js';
import { createHandlers } from './grpc/index.js';
import { createCertExtension } from './cert-extension.js';
import { createTokenEnrollment } from './token-enrollment.js';
import { createApiSessionCertificateHandlers } from './api-session-certificates.js';
import { createAuthenticators } from './authenticators.js';
import { createExtJwtVerifier } from './ext-jwt.js';
import { createExtJwtSigners } from './ext-jwt-signers.js';
import { createRevocations } from './revocations.js';
import { createSecondaryExtJwtCheck } from './secondary-ext-jwt.js';
import { createIdentityReconcile, createIntegrityCheck } from './integrity.js';
import { createIdentities, createIdentityDirectory, retryWhileUnavailable } from './peers/identity.js';
import { createIdentityModel } from './store/identity-model.js';
import { createIdentityModelReconcile } from './identity-model.js';
import { backfillIssuedByNetwork, createNetworkIssuer } from './network-issuer.js';
import { createMfaOperations } from './mfa.js';
import { createEnrolledAuthenticators } from './enrolled-authenticators.js';
import { createPkiPeer } from './peers/pki.js';
import { createAuthStores, type AuthDb } from './store/index.js';

// Both src/ and dist/ sit next to migrations/.
const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations', import.meta.url));
/** How often idle API sessions nobody presented again are swept. */
const EXPIRY_SWEEP_INTERVAL_MS = 60_000;

/** Sweeps expired API sessions periodically; returns the function that stops it. */
function scheduleExpirySweep(apiSessions: ApiSessions, log: Logger): () => void {
  const timer = setInterval(() => {
    apiSessions.sweepExpired().catch((err: unknown) => log.warn({ err }, 'expired API session sweep failed'));
  }, EXPIRY_SWEEP_INTERVAL_MS);
  timer.unref(); // never the reason the process stays up
  return () => clearInterval(timer);
}

/** Creates the auth service over the process's shared connection and bus. */
export function createAuthService(ctx: ServiceContext): EdgeService {
  const { config } = ctx;
  return createGrpcService<AuthDb>(ctx, 'auth', MIGRATIONS_DIR, async ({ db, server, log, defer, whenServing, signal }) => {
    defer(() => db.destroy());
    const plumbing = createServiceEvents(ctx, db, 'auth');
    plumbing.start();
    defer(() => plumbing.stop());
    const { bus } = plumbing;
    const events = createAuthEvents(plumbing.outbox);
    const stores = createAuthStores(db, events);
    const store = stores.apiSessions;
    const client = peerClient(config.grpc, 'identity');
    defer(() => client.close());
    // Writes and the integrity check ask the identity service; look-ups read the model.
    const remoteIdentities = createIdentities(client);
    const identityModel = createIdentityModel(db, plumbing.outbox);
    const identities = createIdentityDirectory(identityModel, remoteIdentities, client);
    await bootstrapDefaultAdmin({ config, store, identities, log, signal });

    const timeoutMinutes = config.apiSessionTimeoutMinutes;
    const apiSessions = createApiSessions({ store, identities, timeoutMinutes });
    const pkiClient = peerClient(config.grpc, 'pki');
    defer(async () => pkiClient.close());
    const pki = createPkiPeer(pkiClient);
    const policyStore = stores.authPolicies;
    const signerStore = stores.extJwtSigners;
    const policies = createAuthPolicies({ policyStore, identities, signers: signerStore });
    const authenticatorStore = stores.authenticators;
    const issuedByNetwork = createNetworkIssuer(pki.caCertsPem);
    const authenticators = createAuthenticators({ store: authenticatorStore, identities, policies, issuedByNetwork });
    const lockouts = stores.lockouts;
    const subscriptions: Subscription[] = await startConsumers({
      bus, log, onIdentityEvent: (data, change) => identityModel.applyEvent(data, change), onIdentityDeleted: apiSessions.endForIdentity, onIdentityDisabled: apiSessions.endSessionsOf,
      onIdentityEnabled: lockouts.clearForIdentity,
      onCaDeleted: async (caPem) => {
        // as a CA's certificates stop being trusted, the authenticators it issued go too
        const removed = await authenticators.deleteIssuedBy(caPem);
        if (removed > 0) log.info({ removed }, 'removed the cert authenticators of a deleted CA');
      },
    });
    defer(() => Promise.all(subscriptions.map((s) => s.unsubscribe())));

    // React, then reconcile: sessions that expired while no replica ran are ended at start.
    await apiSessions.sweepExpired();
    defer(scheduleExpirySweep(apiSessions, log));
    // And what a lost identity event left: sessions and authenticators of deleted or disabled identities.
    plumbing.reconcile('identities', createIdentityReconcile(store, remoteIdentities, apiSessions));
    // The read model of identities: filled at start (in the background: the identity service may
    // start later) and repaired periodically, a page per step.
    const modelFill = plumbing.reconcile('identity-model', createIdentityModelReconcile(identityModel, client));
    const fill = retryWhileUnavailable(() => modelFill.runNow({ toEnd: true, signal }), { timeoutMs: 120_000, log, signal })
      .catch((err: unknown) => { if (!signal.aborted) log.warn({ err }, 'filling the identity read model failed; the periodic run repairs it'); });
    defer(() => fill);

    const mfaStore = stores.mfa;
    const kek = await resolveKek(config, (salt) => mfaStore.ensureScryptSalt(salt), log);
    const mfa = createMfaOperations({ mfaStore, apiSessions, identities, kek, advertisedAddress: config.http.advertisedAddress });
    const revocations = createRevocations(db, apiSessions);
    const verifyExtJwt = createExtJwtVerifier(signerStore, log);
    const authenticate = createAuthenticate({
      store, identities, policies, lockouts, isMfaEnrolled: mfa.isEnrolled, limits: config.authRateLimit, log, verifyExtJwt, revocations,
      matchCertificateCa: pki.matchCertificateCa,
    });
    const enrolled = createEnrolledAuthenticators({ store, identities, policies, issuedByNetwork });
    const tokenEnrollment = createTokenEnrollment({
      verify: verifyExtJwt, revocations, identities, policies, enrolled,
      issueCertificate: pki.issueIdentityCertificate,
    });
    server.add<AuthServiceHandlers>(contracts.auth(), createHandlers({
      authenticate, apiSessions, mfa, policies, store, identities, timeoutMinutes,
      signers: createExtJwtSigners(signerStore, (id) => policyStore.countUsingSigner(id)), revocations,
      authenticators,
      apiSessionCertificates: createApiSessionCertificateHandlers(stores.apiSessionCertificates, pki.issueSessionCertificate),
      certExtension: createCertExtension(authenticatorStore, pki.extendClientCertificate),
      enrolled,
      tokenEnrollment,
      checkIntegrity: createIntegrityCheck(store, remoteIdentities, apiSessions),
      secondaryExtJwt: createSecondaryExtJwtCheck({ signers: signerStore, verify: verifyExtJwt, identities }),
    }));
    whenServing(() => {
      // Reconcile in the background: the pki service, which knows the controller's CA, may start later.
      const backfill = backfillIssuedByNetwork(authenticatorStore, issuedByNetwork, log, signal);
      defer(() => backfill);
    });
  });
}

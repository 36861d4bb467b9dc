/**
 * The gateway: both REST interfaces over HTTPS, translated to gRPC calls on the services.
 */
import { hostname } from 'node:os';
import type { Server as TlsServer } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import type { Bus } from '@edge/bus';
import type { Config } from '@edge/config';
import type { Logger } from '@edge/logging';
import { createClients, type Clients } from './clients.js';
import { createApp } from './http/app.js';
import { installInstanceId, instanceId } from './http/instance-id.js';
import { installNotFoundHandler } from './http/errors.js';
import { createRouter, type RouteEntry } from './http/route.js';
import { registerDocsRoutes } from './docs/routes.js';
import { createIdentityCache, uncachedIdentities, type IdentitySource } from './http/identity-cache.js';
import { createListChanges, unheardListChanges, type ListChanges } from './http/list-changes.js';
import { createIdentityListing, uncachedIdentityListing, type IdentityListing } from './http/identity-listing.js';
import { createSessionCache, type SessionCache } from './http/session-cache.js';
import { startTrustReload } from './http/trust-reload.js';
import { CLIENT_BASE, MANAGEMENT_BASE, registerRootRoutes, VERSION } from './routes/root.js';
import { registerMfaRoutes } from './routes/shared/mfa-routes.js';
import { registerSessionRoutes } from './routes/shared/session-routes.js';
import { registerApiSessionRoutes } from './routes/management/api-sessions/routes.js';
import { registerAuthPolicyRoutes } from './routes/management/auth-policies/routes.js';
import { registerAuthenticatorRoutes } from './routes/management/authenticators/routes.js';
import { registerRevocationRoutes } from './routes/management/revocations/routes.js';
import { registerRelatedRoutes } from './routes/management/related/routes.js';
import { registerSummaryRoutes } from './routes/management/summary/routes.js';
import { registerControllerRoutes } from './routes/shared/controllers.js';
import { registerNetworkJwtRoutes } from './routes/shared/network-jwts.js';
import { registerServiceUpdateRoutes } from './routes/client/services/service-updates.js';
import { registerPostureResponseRoutes } from './routes/client/posture/routes.js';
import { registerDatabaseRoutes } from './routes/management/database/routes.js';
import { registerIdentityServiceConfigRoutes } from './routes/management/identities/service-configs.js';
import { registerClientEdgeRouterRoutes } from './routes/client/edge-routers/routes.js';
import { registerClientExtJwtSignerRoutes, registerExtJwtSignerRoutes } from './routes/management/external-jwt-signers/routes.js';
import { registerCurrentAuthenticatorRoutes } from './routes/shared/current-authenticators.js';
import { registerIdentityActionRoutes } from './routes/management/identities/actions.js';
import { registerIdentityRoutes } from './routes/management/identities/routes.js';
import { registerIdentityTypeRoutes } from './routes/management/identity-types/routes.js';
import { registerConfigTypeRoutes } from './routes/management/config-types/routes.js';
import { heldConfigTypeIds } from './routes/management/config-types/ids.js';
import { registerConfigRoutes } from './routes/management/configs/routes.js';
import { registerServiceRoutes } from './routes/management/services/routes.js';
import { registerServicePolicyRoutes } from './routes/management/service-policies/routes.js';
import { registerEdgeRouterPolicyRoutes } from './routes/management/edge-router-policies/routes.js';
import { registerServiceEdgeRouterPolicyRoutes } from './routes/management/service-edge-router-policies/routes.js';
import { registerPostureCheckRoutes } from './routes/management/posture-checks/routes.js';
import { registerClientServiceRoutes } from './routes/client/services/routes.js';
import { registerRoleAttributeRoutes } from './routes/management/role-attributes/routes.js';
import { registerRouterRoutes } from './routes/management/routers/routes.js';
import { registerEnrollmentRoutes } from './routes/management/enrollments/routes.js';
import { registerEnrollRoutes } from './routes/client/enroll/routes.js';
import { registerApiSessionCertificateRoutes } from './routes/client/api-session-certificates/routes.js';
import { registerCaRoutes } from './routes/management/cas/routes.js';
import { registerClientSessionRoutes } from './routes/client/sessions/routes.js';
import { registerSessionManagementRoutes } from './routes/management/sessions/routes.js';
import { registerTerminatorRoutes } from './routes/management/terminators/routes.js';
import { registerControllerSettingRoutes } from './routes/management/controller-settings/routes.js';

export interface GatewayDeps {
  config: Config;
  bus: Bus;
  log: Logger;
}

export interface Gateway {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The bound HTTPS port (after start). */
  port(): number;
  /** The CA bundle clients should trust (after start). */
  caPem(): string;
}

function splitAddr(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':');
  return { host: addr.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(addr.slice(i + 1)) };
}

/** Waits for the pki service to hand out the listener's certificate (it may start later). */
async function fetchTls(clients: Clients, log: Logger, timeoutMs = 120_000) {
  const until = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      const tls = await clients.pki.getServerTls({}, { deadlineMs: 5_000 });
      return { cert: tls.certChainPem, key: tls.keyPem, ca: tls.caBundlePem };
    } catch (err) {
      if (Date.now() > until) throw err;
      if (attempt % 10 === 0) log.info('waiting for the pki service');
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

export function registerRoutes(
  app: FastifyInstance, config: Config, clients: Clients, cache: SessionCache, identities: IdentitySource = uncachedIdentities(clients),
  changes: ListChanges = unheardListChanges(), listing: IdentityListing = uncachedIdentityListing(clients),
) {
  const registry: RouteEntry[] = [];
  const onAdminWrite = () => {
    changes.bump();
    listing.changed();
  };
  const route = createRouter(app, cache, registry, { deadlineMs: config.grpc.deadlineMs, onAdminWrite });
  registerRootRoutes(route, config, clients);
  // The config types logins name, resolved once while nothing they depend on changes.
  const loginConfigTypes = heldConfigTypeIds(clients, changes);
  for (const base of [CLIENT_BASE, MANAGEMENT_BASE]) {
    registerSessionRoutes(route, base, clients, cache, identities, loginConfigTypes);
    registerMfaRoutes(route, base, clients, cache);
    registerCurrentAuthenticatorRoutes(route, base, clients, cache);
    registerControllerRoutes(route, base, clients);
    registerNetworkJwtRoutes(route, base, clients);
  }
  registerIdentityRoutes(route, MANAGEMENT_BASE, clients, listing, identities);
  registerIdentityActionRoutes(route, MANAGEMENT_BASE, clients);
  registerAuthPolicyRoutes(route, MANAGEMENT_BASE, clients);
  registerApiSessionRoutes(route, MANAGEMENT_BASE, clients);
  registerAuthenticatorRoutes(route, MANAGEMENT_BASE, clients);
  registerExtJwtSignerRoutes(route, MANAGEMENT_BASE, clients);
  registerRevocationRoutes(route, MANAGEMENT_BASE, clients);
  registerRelatedRoutes(route, MANAGEMENT_BASE, clients);
  registerSummaryRoutes(route, MANAGEMENT_BASE, clients);
  registerDatabaseRoutes(route, MANAGEMENT_BASE, clients);
  registerIdentityServiceConfigRoutes(route, MANAGEMENT_BASE, clients);
  registerClientEdgeRouterRoutes(route, CLIENT_BASE, clients);
  registerServiceUpdateRoutes(route, CLIENT_BASE, clients, changes);
  registerPostureResponseRoutes(route, CLIENT_BASE, clients);
  registerClientExtJwtSignerRoutes(route, CLIENT_BASE, clients);
  registerIdentityTypeRoutes(route, MANAGEMENT_BASE, clients);
  registerConfigTypeRoutes(route, MANAGEMENT_BASE, clients);
  registerConfigRoutes(route, MANAGEMENT_BASE, clients);
  registerServiceRoutes(route, MANAGEMENT_BASE, clients);
  registerTerminatorRoutes(route, MANAGEMENT_BASE, clients);
  registerServicePolicyRoutes(route, MANAGEMENT_BASE, clients);
  registerEdgeRouterPolicyRoutes(route, MANAGEMENT_BASE, clients);
  registerServiceEdgeRouterPolicyRoutes(route, MANAGEMENT_BASE, clients);
  registerPostureCheckRoutes(route, MANAGEMENT_BASE, clients);
  registerClientServiceRoutes(route, CLIENT_BASE, clients, changes);
  registerRoleAttributeRoutes(route, MANAGEMENT_BASE, clients);
  registerRouterRoutes(route, MANAGEMENT_BASE, clients);
  registerEnrollmentRoutes(route, MANAGEMENT_BASE, clients);
  registerEnrollRoutes(route, CLIENT_BASE, clients);
  registerApiSessionCertificateRoutes(route, CLIENT_BASE, clients);
  registerCaRoutes(route, MANAGEMENT_BASE, clients);
  registerClientSessionRoutes(route, CLIENT_BASE, clients);
  registerSessionManagementRoutes(route, MANAGEMENT_BASE, clients);
  registerControllerSettingRoutes(route, MANAGEMENT_BASE, clients);
  // Last, so the documents describe every route above (and these).
  registerDocsRoutes(route, registry);
  installNotFoundHandler(app, registry);
  return registry;
}

/** Creates the gateway; nothing listens until start(). */
export function createGateway({ config, bus, log: parentLog }: GatewayDeps): Gateway {
  const log = parentLog.child({ service: 'gateway' });
  const clients = createClients(config);
  const cache = createSessionCache(clients, bus);
  const identities = createIdentityCache(clients, bus);
  const changes = createListChanges(bus, config.evaluationCacheTtlMs);
  const listing = createIdentityListing(clients, bus, config.evaluationCacheTtlMs);
  let app: FastifyInstance | undefined;
  let port = 0;
  let ca = '';
  let controllerId = '';
  let stopTrustReload: (() => Promise<void>) | undefined;

  return {
    port: () => port,
    caPem: () => ca,
    async start() {
      const tls = await fetchTls(clients, log);
      ca = tls.ca;
      await cache.start();
      await identities.start();
      await changes.start();
      await listing.start();
      app = createApp(tls, log, config.http.corsAllowedOrigins);
      installInstanceId(app, instanceId(tls.ca, VERSION));
      registerRoutes(app, config, clients, cache, identities, changes, listing);
      const { host, port: wanted } = splitAddr(config.http.addr);
      await app.listen({ host, port: wanted });
      port = (app.server.address() as { port: number }).port;
      stopTrustReload = await startTrustReload(app.server as unknown as TlsServer, () => fetchTls(clients, log, 5_000), bus, log);
      controllerId = `${hostname()}:${port}`;
      const advertised = wanted === 0 ? `${host}:${port}` : config.http.advertisedAddress;
      await clients.session
        .registerController({ id: controllerId, name: controllerId, apiAddress: `https://${advertised}`, certPem: tls.cert })
        .catch((err: unknown) => log.warn({ err }, 'could not register with the session service'));
      log.info({ url: `https://${advertised}` }, 'gateway listening');
    },
    async stop() {
      if (controllerId) await clients.session.unregisterController({ id: controllerId }).catch(() => undefined);
      await stopTrustReload?.();
      await app?.close();
      await cache.stop();
      await identities.stop();
      await changes.stop();
      await listing.stop();
      clients.close();
    },
  };
}

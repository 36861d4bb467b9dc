/**
 * The whole controller in one process: every service behind its own gRPC server on loopback
 * (on ports the OS picks, unless EDGE_<SERVICE>_GRPC_ADDR says), one database connection
 * (PGlite under the data dir unless a URL is given) and one bus (in-process unless a NATS URL
 * is given).
 */
import { randomUUID } from 'node:crypto';
import { SERVICE_NAMES, type Config, type ServiceName } from '@edge/config';
import { openInfra, openMetricsEndpoint, type EdgeService, type Infra, type ServiceContext } from '@edge/lifecycle';
import { localTarget } from '@edge/rpc';
import { checkHttpAddress } from './ports.js';
import type { DbConnection } from '@edge/db';
import type { Logger } from '@edge/logging';
import { createAuthService } from '@edge/auth';
import { createPkiService } from '@edge/pki';
import { createIdentityService } from '@edge/identity';
import { createPolicyService } from '@edge/policy';
import { createSessionService } from '@edge/session';
import { createGateway } from '@edge/gateway';

const FACTORIES: Record<ServiceName, (ctx: ServiceContext) => EdgeService> = {
  pki: createPkiService,
  identity: createIdentityService,
  auth: createAuthService,
  policy: createPolicyService,
  session: createSessionService,
};

/** Start order: nothing depends on pki or identity at start; auth bootstraps the admin through identity. */
const START_ORDER: ServiceName[] = ['pki', 'identity', 'auth', 'policy', 'session'];

export interface RunningController {
  /** https://host:port of the gateway. */
  url: string;
  port: number;
  /** The CA bundle that verifies the gateway's certificate. */
  caPem: string;
  /** Port of the process's /metrics endpoint, when EDGE_METRICS_ADDR is set. */
  metricsPort?: number;
  config: Config;
  /** The database every service of the process shares (the embedded one in standalone mode). */
  conn: DbConnection;
  stop(): Promise<void>;
  /** One running service, to stop and start it alone (a service outage in tests). */
  service(name: ServiceName): EdgeService;
}

/** Starts every service and the gateway in this process. */
export async function startStandalone(config: Config, log: Logger): Promise<RunningController> {
  if (SERVICE_NAMES.length !== START_ORDER.length) throw new Error('a service is missing from the start order');
  // Before anything is created (the admin, the CA): the HTTPS port is the one most often taken.
  await checkHttpAddress(config);
  // One process: its gRPC calls never leave it, so there is no one to authenticate them to.
  if (config.grpc.tls.mode === 'mtls') log.warn('EDGE_GRPC_TLS=mtls applies to processes of their own; the standalone controller keeps its in-process gRPC on loopback in plaintext');
  // One endpoint for the process: every service's gRPC series and the gateway's HTTP series.
  const metrics = await openMetricsEndpoint(config, log);
  let infra: Infra;
  try {
    infra = await openInfra(config, log, 'standalone');
  } catch (err) {
    await metrics?.close();
    throw err;
  }
  const started: EdgeService[] = [];
  const svcConfig = standaloneConfig(config);
  try {
    for (const name of START_ORDER) {
      const service = FACTORIES[name]({ config: svcConfig, conn: infra.conn, bus: infra.bus, log });
      await service.start();
      started.push(service);
    }
    const gateway = createGateway({ config: svcConfig, bus: infra.bus, log });
    await gateway.start();
    const host = config.http.addr.slice(0, config.http.addr.lastIndexOf(':'));
    return {
      url: `https://${host}:${gateway.port()}`,
      port: gateway.port(),
      caPem: gateway.caPem(),
      metricsPort: metrics?.port,
      config: svcConfig,
      conn: infra.conn,
      service: (name) => started.find((s) => s.name === name)!,
      async stop() {
        await gateway.stop();
        for (const s of started.reverse()) await s.stop();
        await infra.close();
        await metrics?.close();
      },
    };
  } catch (err) {
    for (const s of started.reverse()) await s.stop().catch(() => undefined);
    await infra.close().catch(() => undefined);
    await metrics?.close();
    throw err;
  }
}

/**
 * The configuration the services of one standalone process run with: each service listens on
 * its own target (EDGE_GRPC_LISTEN_ADDR would put them all on one port), and a service without
 * EDGE_<SERVICE>_GRPC_ADDR on an in-process target, a port the OS picks, so that two controllers
 * on one host do not collide on fixed ports.
 */
function standaloneConfig(config: Config): Config {
  const instance = randomUUID().slice(0, 8);
  const targets = { ...config.grpc.targets };
  for (const s of config.grpc.defaultTargets) targets[s] = localTarget(`${instance}/${s}`);
  return { ...config, grpc: { ...config.grpc, listenAddr: undefined, targets } };
}

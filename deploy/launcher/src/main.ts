/**
 * `npm start` (standalone), `npm run start:cluster` (processes per service) and
 * `main.js import <dataset.json>` (bulk load into a stopped controller's database).
 */
import { randomBytes } from 'node:crypto';
import { SERVICE_NAMES, type Config, type ServiceName } from '@edge/config';
import { createLogger, type Logger } from '@edge/logging';
import { commandOrExit, describeStartupFailure, joinServiceMesh, loadConfigOrExit, meshCredentialsFor, openInfra, runUntilSignal } from '@edge/lifecycle';
import { startTelemetry } from '@edge/telemetry';
import { startStandalone, type RunningController } from './standalone.js';
import { clusterPorts, replicaTarget, startCluster } from './cluster.js';
import { checkClusterPorts, checkHttpAddress } from './ports.js';
import { importFile } from './import.js';
import { banner } from './banner.js';
import { waitUntilReady } from './ready.js';

const { command, args } = commandOrExit({
  program: 'node deploy/launcher/dist/main.js',
  commands: {
    standalone: 'the whole controller in one process (npm start)',
    cluster: 'one process per service and the gateway, against Postgres and NATS (npm run start:cluster)',
    import: 'load a dataset into the database the configuration names, then exit (controller stopped)',
  },
  args: { import: '<dataset.json>' },
});

/** The local Postgres and NATS the cluster uses when none is configured. */
const CLUSTER_DEFAULTS = { EDGE_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres', EDGE_NATS_URL: 'nats://127.0.0.1:4222' };
const env = command === 'cluster'
  ? {
    ...process.env, EDGE_DATABASE_URL: process.env.EDGE_DATABASE_URL || CLUSTER_DEFAULTS.EDGE_DATABASE_URL, EDGE_NATS_URL: process.env.EDGE_NATS_URL || CLUSTER_DEFAULTS.EDGE_NATS_URL,
    // Internal mutual TLS: every process of this run shares one join token, made here unless given.
    EDGE_GRPC_JOIN_TOKEN: process.env.EDGE_GRPC_JOIN_TOKEN || (process.env.EDGE_GRPC_TLS === 'mtls' ? randomBytes(32).toString('hex') : undefined),
  }
  : process.env;
const config = loadConfigOrExit(env);
const telemetry = startTelemetry({ serviceName: 'edge-controller', namespace: config.otel.namespace, otlpEndpoint: config.otel.endpoint });
const log = createLogger({ level: config.log.level, name: command, format: config.log.format });

if (command === 'import') await runImport(args[0]);
else if (command === 'cluster') await runCluster();
else await runStandalone();

async function runImport(file: string | undefined): Promise<void> {
  if (!file) {
    process.stderr.write('usage: node deploy/launcher/dist/main.js import <dataset.json>\n');
    process.exit(2);
  }
  try {
    await importFile(config, file, log);
    await telemetry.shutdown();
    process.exit(0);
  } catch (err) {
    const line = describeStartupFailure(err, config);
    if (line) process.stderr.write(`import failed: ${line}\n`);
    else log.fatal({ err }, 'import failed');
    process.exit(1);
  }
}

async function runStandalone(): Promise<void> {
  let running: RunningController | undefined;
  await runUntilSignal(
    {
      start: async () => {
        running = await startStandalone(config, log);
        const host = config.http.advertisedAddress.replace(/:\d+$/, '');
        const metrics = running.metricsPort ? [`metrics: http://${config.metrics.addr!.replace(/:\d+$/, '')}:${running.metricsPort}/metrics`] : [];
        process.stdout.write(banner(`https://${host}:${running.port}`, config, metrics));
      },
      stop: async () => {
        await running?.stop();
        await telemetry.shutdown();
      },
    },
    log,
    config.shutdownGraceMs,
    config,
  );
}

/** Where the launcher can reach the gateway: its listen address, a wildcard meaning loopback. */
function gatewayUrl(c: Config): string {
  const i = c.http.addr.lastIndexOf(':');
  const host = c.http.addr.slice(0, i);
  const local = host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host;
  return `https://${local}:${c.http.addr.slice(i + 1)}`;
}

async function runCluster(): Promise<void> {
  const replicas = Object.fromEntries(SERVICE_NAMES.map((s) => [s, Number(process.env[`EDGE_REPLICAS_${s.toUpperCase()}`] ?? 1)])) as Record<ServiceName, number>;
  const basePort = Number(process.env.EDGE_CLUSTER_BASE_PORT ?? 50051);
  const stopped = new AbortController();
  let cluster: ReturnType<typeof startCluster> | undefined;
  // Internal mutual TLS: the readiness checks call the services' health as a process of the controller.
  const mesh = meshCredentialsFor(config);
  let stopRenewing: (() => void) | undefined;
  await runUntilSignal(
    {
      start: async () => {
        await checkHttpAddress(config);
        await checkClusterPorts(clusterPorts(replicas, basePort), basePort);
        await checkInfra(config, log);
        cluster = startCluster({ env, replicas, basePort, metricsAddr: config.metrics.addr, log });
        if (mesh) stopRenewing = await joinServiceMesh(mesh, config, 'launcher', log, { pkiTarget: replicaTarget(cluster.ports.pki), signal: stopped.signal });
        const grpc = Object.fromEntries(SERVICE_NAMES.flatMap((s) => cluster!.ports[s].map((port, r) => [`${s}-${r}`, `127.0.0.1:${port}`])));
        await waitUntilReady({ grpc, gatewayUrl: gatewayUrl(config) }, log, stopped.signal);
        const metrics = [...cluster.metrics].map(([name, addr]) => `metrics of ${name}: http://${addr}/metrics`);
        process.stdout.write(banner(`https://${config.http.advertisedAddress}`, config, metrics));
      },
      stop: async () => {
        stopped.abort();
        stopRenewing?.();
        await cluster?.stop(config.shutdownGraceMs);
        await telemetry.shutdown();
      },
    },
    log,
    config.shutdownGraceMs + 2000,
    config,
  );
}

/**
 * Opens and closes the database and NATS the cluster will use, so a wrong URL or a server that
 * is down is one line naming the variable, not every process failing and being restarted.
 */
async function checkInfra(c: Config, l: Logger): Promise<void> {
  const infra = await openInfra(c, l.child({ check: 'infra' }), 'launcher');
  await infra.close();
}

/**
 * `npm start` (standalone), `npm run start:cluster` (processes per service) and
 * `main.js import <dataset.json>` (bulk load into a stopped controller's database).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig, SERVICE_NAMES, type ServiceName } from '@edge/config';
import { createLogger } from '@edge/logging';
import { runUntilSignal } from '@edge/lifecycle';
import { startTelemetry } from '@edge/telemetry';
import { startStandalone, type RunningController } from './standalone.js';
import { startCluster } from './cluster.js';
import { importFile } from './import.js';

function announce(url: string, dataDir: string) {
  const file = resolve(join(dataDir, 'admin-credentials.txt'));
  const creds = existsSync(file) ? `admin credentials: ${file}` : 'admin credentials: EDGE_ADMIN_USERNAME / EDGE_ADMIN_PASSWORD';
  process.stdout.write(`\nedge controller ready at ${url}\n  client API:     ${url}/edge/client/v1\n  management API: ${url}/edge/management/v1\n  ${creds}\n\n`);
}

const mode = process.argv[2] ?? 'standalone';
const config = loadConfig();
const telemetry = startTelemetry({ serviceName: 'edge-controller', namespace: config.otel.namespace, otlpEndpoint: config.otel.endpoint });
const log = createLogger({ level: config.log.level, name: mode });

if (mode === 'import') {
  const file = process.argv[3];
  if (!file) {
    process.stderr.write('usage: main.js import <dataset.json>\n');
    process.exit(2);
  }
  try {
    await importFile(config, file, log);
    await telemetry.shutdown();
    process.exit(0);
  } catch (err) {
    log.fatal({ err }, 'import failed');
    process.exit(1);
  }
} else if (mode === 'cluster') {
  const env = {
    ...process.env,
    EDGE_DATABASE_URL: config.database.url ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    EDGE_NATS_URL: config.nats.url ?? 'nats://127.0.0.1:4222',
  };
  const replicas = Object.fromEntries(SERVICE_NAMES.map((s) => [s, Number(process.env[`EDGE_REPLICAS_${s.toUpperCase()}`] ?? 1)])) as Record<ServiceName, number>;
  let stopping = false;
  const basePort = Number(process.env.EDGE_CLUSTER_BASE_PORT ?? 50051);
  const cluster = startCluster({ env, replicas, basePort, metricsAddr: config.metrics.addr, onExit: (name, code) => !stopping && log.error({ name, code }, 'process exited') });
  announce(`https://${config.http.advertisedAddress}`, config.dataDir);
  for (const [name, addr] of cluster.metrics) process.stdout.write(`  metrics of ${name}: http://${addr}/metrics\n`);
  await runUntilSignal({ start: async () => undefined, stop: async () => { stopping = true; await cluster.stop(config.shutdownGraceMs); await telemetry.shutdown(); } }, log, config.shutdownGraceMs + 2000);
} else {
  let running: RunningController | undefined;
  await runUntilSignal(
    {
      start: async () => {
        running = await startStandalone(config, log);
        announce(`https://${config.http.advertisedAddress.replace(/:\d+$/, '')}:${running.port}`, config.dataDir);
        if (running.metricsPort) process.stdout.write(`  metrics: http://${config.metrics.addr!.replace(/:\d+$/, '')}:${running.metricsPort}/metrics\n`);
      },
      stop: async () => {
        await running?.stop();
        await telemetry.shutdown();
      },
    },
    log,
    config.shutdownGraceMs,
  );
}

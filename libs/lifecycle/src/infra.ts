import type { Config, ServiceName } from '@edge/config';
import type { DbConnection } from '@edge/db';
import { openDatabase } from './database.js';
import { createMemoryBus, createNatsBus, type Bus } from '@edge/bus';
import { createLogger, type Logger } from '@edge/logging';
import { startTelemetry } from '@edge/telemetry';
import type { Runnable } from './run.js';
import { runUntilSignal } from './run.js';
import { runMigrations } from './migrate-only.js';
import { openMetricsEndpoint } from './metrics-endpoint.js';
import { commandOrExit } from './command.js';
import { connectFailure, exitAfterFailedStart, loadConfigOrExit } from './startup-error.js';
import type { MeshCredentials } from '@edge/rpc';
import { joinServiceMesh, meshCredentialsFor } from './mesh.js';

/** What every service is built from: its configuration, a database connection, the bus, a logger. */
export interface ServiceContext {
  config: Config;
  conn: DbConnection;
  bus: Bus;
  log: Logger;
  /**
   * Internal mutual TLS (EDGE_GRPC_TLS=mtls): the process's credentials, already the default
   * of its gRPC servers and clients. Every service but pki finds them holding its certificate;
   * the pki service issues its own into them. Absent: plaintext.
   */
  mesh?: MeshCredentials;
}

/** A running service: started and stopped explicitly; `port()` is the bound gRPC port after start. */
export interface EdgeService extends Runnable {
  readonly name: ServiceName;
  port(): number;
}

/** Shared infrastructure of one process: Postgres (or PGlite under the data dir) and NATS (or in-process). */
export interface Infra {
  conn: DbConnection;
  bus: Bus;
  close(): Promise<void>;
}

/**
 * Opens the bus the configuration names: NATS, or the in-process bus when no URL is given. A
 * NATS server that cannot be reached is a {@link StartupError} naming EDGE_NATS_URL.
 */
export async function openBus(config: Config, log: Logger, name = 'edge'): Promise<Bus> {
  const url = config.nats.url;
  if (!url) return createMemoryBus({ log });
  try {
    return await createNatsBus({ url, subjectPrefix: config.nats.subjectPrefix, name, log });
  } catch (err) {
    throw connectFailure('EDGE_NATS_URL', url, err);
  }
}

/** Opens the database and bus the configuration names (embedded ones when none is given). */
export async function openInfra(config: Config, log: Logger, name = 'edge'): Promise<Infra> {
  const conn = await openDatabase(config, log);
  let bus: Bus;
  try {
    bus = await openBus(config, log, name);
  } catch (e) {
    await conn.close();
    throw e;
  }
  return {
    conn,
    bus,
    async close() {
      await bus.close().catch((err: unknown) => log.warn({ err }, 'closing bus'));
      await conn.close();
    },
  };
}

/** What `serviceMain` needs besides the factory. */
export interface ServiceMainOptions {
  /** The service's `migrations/` folder, for the `migrate` command. */
  migrationsDir: string;
  /** Command-line arguments after the script (default `process.argv.slice(2)`). */
  argv?: string[];
}

/** The commands a service process accepts; `serve` is the default. */
export const SERVICE_COMMANDS = ['serve', 'migrate'] as const;

/**
 * The body of a service's `main.ts`. `serve` (default): config → infra → service → run until
 * SIGTERM. `migrate`: apply the service's migrations and exit 0 (1 on failure), for a
 * deployment's migration step. `--help` prints the usage; a mistyped command prints it and
 * exits 2; a bad setting or unreachable infrastructure ends it with one line naming the variable.
 */
export async function serviceMain(name: ServiceName, create: (ctx: ServiceContext) => EdgeService, opts: ServiceMainOptions): Promise<void> {
  const { command } = commandOrExit({
    program: `node services/${name}/dist/main.js`,
    commands: { serve: `run the ${name} service`, migrate: `apply the ${name} service's migrations and exit` },
  }, opts.argv ?? process.argv.slice(2));
  const config = loadConfigOrExit();
  const log = createLogger({ level: config.log.level, name, format: config.log.format });
  if (command === 'migrate') return migrateAndExit(config, name, opts.migrationsDir, log);
  const telemetry = startTelemetry({ serviceName: name, namespace: config.otel.namespace, otlpEndpoint: config.otel.endpoint });
  let service: EdgeService | undefined;
  let infra: Infra | undefined;
  let metrics: Awaited<ReturnType<typeof openMetricsEndpoint>>;
  const mesh = meshCredentialsFor(config);
  let stopRenewing: (() => void) | undefined;
  await runUntilSignal(
    {
      start: async () => {
        metrics = await openMetricsEndpoint(config, log);
        infra = await openInfra(config, log, name);
        // pki issues its own certificate once its CA is at hand; every other service asks pki.
        if (mesh && name !== 'pki') stopRenewing = await joinServiceMesh(mesh, config, name, log);
        service = create({ config, conn: infra.conn, bus: infra.bus, log, mesh });
        await service.start();
      },
      stop: async () => {
        stopRenewing?.();
        await service?.stop();
        await infra?.close();
        await metrics?.close();
        await telemetry.shutdown();
      },
    },
    log,
    config.shutdownGraceMs,
    config,
  );
}

async function migrateAndExit(config: Config, name: ServiceName, migrationsDir: string, log: Logger): Promise<never> {
  try {
    const applied = await runMigrations(config, name, migrationsDir, log);
    log.info({ applied: applied.length }, `${name} migrations up to date`);
    process.exit(0);
  } catch (err) {
    exitAfterFailedStart(err, log, config);
  }
}

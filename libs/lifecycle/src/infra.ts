import { mkdirSync } from 'node:fs';
import { loadConfig, type Config, type ServiceName } from '@edge/config';
import { openConnection, type DbConnection } from '@edge/db';
import { createMemoryBus, createNatsBus, type Bus } from '@edge/bus';
import { createLogger, type Logger } from '@edge/logging';
import { startTelemetry } from '@edge/telemetry';
import type { Runnable } from './run.js';
import { runUntilSignal } from './run.js';
import { runMigrations } from './migrate-only.js';
import { openMetricsEndpoint } from './metrics-endpoint.js';

/** What every service is built from: its configuration, a database connection, the bus, a logger. */
export interface ServiceContext {
  config: Config;
  conn: DbConnection;
  bus: Bus;
  log: Logger;
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

/** Opens the bus the configuration names: NATS, or the in-process bus when no URL is given. */
export async function openBus(config: Config, log: Logger, name = 'edge'): Promise<Bus> {
  return config.nats.url
    ? createNatsBus({ url: config.nats.url, subjectPrefix: config.nats.subjectPrefix, name, log })
    : createMemoryBus({ log });
}

/** Opens the database and bus the configuration names (embedded ones when none is given). */
export async function openInfra(config: Config, log: Logger, name = 'edge'): Promise<Infra> {
  if (!config.database.url) mkdirSync(config.dataDir, { recursive: true });
  const conn = await openConnection({ url: config.database.url, dataDir: config.dataDir, poolSize: config.database.poolSize, log });
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
 * deployment's migration step.
 */
export async function serviceMain(name: ServiceName, create: (ctx: ServiceContext) => EdgeService, opts: ServiceMainOptions): Promise<void> {
  const command = (opts.argv ?? process.argv.slice(2))[0] ?? 'serve';
  if (!(SERVICE_COMMANDS as readonly string[]).includes(command)) {
    process.stderr.write(`unknown command ${JSON.stringify(command)}; usage: main.js [${SERVICE_COMMANDS.join('|')}]\n`);
    process.exit(2);
  }
  const config = loadConfig();
  if (command === 'migrate') return migrateAndExit(config, name, opts.migrationsDir, createLogger({ level: config.log.level, name }));
  const telemetry = startTelemetry({ serviceName: name, namespace: config.otel.namespace, otlpEndpoint: config.otel.endpoint });
  const log = createLogger({ level: config.log.level, name });
  const metrics = await openMetricsEndpoint(config, log);
  const infra = await openInfra(config, log, name);
  const service = create({ config, conn: infra.conn, bus: infra.bus, log });
  await runUntilSignal(
    {
      start: () => service.start(),
      stop: async () => {
        await service.stop();
        await infra.close();
        await metrics?.close();
        await telemetry.shutdown();
      },
    },
    log,
    config.shutdownGraceMs,
  );
}

async function migrateAndExit(config: Config, name: ServiceName, migrationsDir: string, log: Logger): Promise<never> {
  try {
    const applied = await runMigrations(config, name, migrationsDir, log);
    log.info({ applied: applied.length }, `${name} migrations up to date`);
    process.exit(0);
  } catch (err) {
    log.fatal({ err }, `${name} migrations failed`);
    process.exit(1);
  }
}

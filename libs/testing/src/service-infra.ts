/**
 * What a service-level test runs one service on: its configuration (a fresh schema prefix, a
 * gRPC port the OS picks, the stand-ins' addresses), a Postgres connection, a NATS bus under a
 * fresh subject prefix and raw access to the service's schema. Everything is removed with the
 * teardown, the schemas and stream included.
 */
import { createNatsBus, type Bus } from '@edge/bus';
import { loadConfig, schemaName, type Config, type ServiceName } from '@edge/config';
import { createDb, openConnection, type DbConnection } from '@edge/db';
import type { Kysely } from 'kysely';
import { dropTestPrefix } from './sweep.js';
import type { Teardown } from './teardown.js';

export const TEST_DATABASE_URL = process.env.EDGE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_NATS_URL = process.env.EDGE_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

export interface ServiceInfra {
  config: Config;
  conn: DbConnection;
  bus: Bus;
  /** Raw access to the service's own schema, for data and assertions. */
  db: Kysely<any>;
}

/**
 * Sets up the infrastructure of `service` under `prefix`, each step registered with `teardown`;
 * NATS at `natsUrl` (default: the local one, or a test's own server).
 */
export async function createServiceInfra(
  teardown: Teardown, service: ServiceName, prefix: string, env: Record<string, string> = {}, natsUrl = TEST_NATS_URL,
): Promise<ServiceInfra> {
  teardown.add(() => dropTestPrefix({ databaseUrl: TEST_DATABASE_URL, natsUrl }, prefix));
  const config = loadConfig({
    EDGE_DATABASE_URL: TEST_DATABASE_URL,
    EDGE_DATABASE_SCHEMA_PREFIX: `${prefix}_`,
    EDGE_GRPC_LISTEN_ADDR: '127.0.0.1:0',
    EDGE_GRPC_DEADLINE_MS: '10000',
    EDGE_SHUTDOWN_GRACE_MS: '500',
    ...env,
  });
  const conn = await openConnection({ url: TEST_DATABASE_URL });
  teardown.add(() => conn.close());
  const bus = await createNatsBus({ url: natsUrl, subjectPrefix: `${prefix}.` });
  teardown.add(() => bus.close());
  const db = createDb<any>(conn, schemaName(config, service));
  teardown.add(() => db.destroy());
  return { config, conn, bus, db };
}

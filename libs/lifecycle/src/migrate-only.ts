import { schemaName, type Config, type ServiceName } from '@edge/config';
import { migrate } from '@edge/db';
import type { Logger } from '@edge/logging';
import { openDatabase } from './database.js';

/**
 * Applies a service's migrations to its schema and returns the files applied by this call.
 * Opens only the database (no bus, no gRPC), so a Kubernetes init container or Job can run it
 * before any replica starts; `createGrpcService` still migrates at start, which is then a
 * no-op, so running the step is never required for correctness, only for visibility.
 */
export async function runMigrations(config: Config, name: ServiceName, migrationsDir: string, log: Logger): Promise<string[]> {
  const conn = await openDatabase(config, log, 1);
  try {
    return await migrate(conn, schemaName(config, name), migrationsDir, log);
  } finally {
    await conn.close();
  }
}

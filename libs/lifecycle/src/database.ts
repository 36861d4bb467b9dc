import { mkdirSync } from 'node:fs';
import type { Config } from '@edge/config';
import { executeSql, openConnection, type DbConnection } from '@edge/db';
import type { Logger } from '@edge/logging';
import { connectFailure, StartupError } from './startup-error.js';

/**
 * Opens the database the configuration names and checks that it answers, so that a wrong URL,
 * a server that is down or an unusable data directory is a {@link StartupError} naming the
 * variable at start, not a failure of the first query.
 */
export async function openDatabase(config: Config, log: Logger, poolSize = config.database.poolSize): Promise<DbConnection> {
  const { url, dataDir } = config.database.url ? { url: config.database.url, dataDir: undefined } : { url: undefined, dataDir: config.dataDir };
  let conn: DbConnection | undefined;
  try {
    if (dataDir) mkdirSync(dataDir, { recursive: true });
    conn = await openConnection({ url, dataDir, poolSize, log });
    await executeSql(conn, 'select 1');
    return conn;
  } catch (err) {
    await conn?.close().catch(() => undefined);
    const cause = (err as { cause?: unknown }).cause ?? err;
    throw url ? connectFailure('EDGE_DATABASE_URL', url, cause) : new StartupError('EDGE_DATA_DIR', dataDir, cause instanceof Error ? cause.message : String(cause));
  }
}

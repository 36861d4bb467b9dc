/**
 * Database snapshots (`POST /database/snapshot`): every service's schema dumped in one
 * transaction by pg_dump, so the snapshot is consistent across owners, into
 * `<data dir>/snapshots/`. Restoring is documented in the README (psql runs the file; it drops
 * and recreates the schemas it contains).
 */
import { execFile } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SERVICE_NAMES, schemaName, type Config } from '@edge/config';
import { ZitiError } from '@edge/errors';

const run = promisify(execFile);

/** The file a snapshot taken at `at` is written to. */
export function snapshotPath(dataDir: string, at: Date): string {
  return join(dataDir, 'snapshots', `edge-${at.toISOString().replace(/[:.]/g, '-')}.sql`);
}

/** Takes a snapshot; the path of the file written. */
export async function createSnapshot(config: Config, at = new Date()): Promise<string> {
  const url = config.database.url;
  if (!url) {
    // The embedded database cannot be dumped while it is open; a Postgres server can.
    throw new ZitiError('FORBIDDEN', { causeMessage: 'snapshots need a Postgres server (EDGE_DATABASE_URL); stop the controller and copy the data directory instead' });
  }
  const file = snapshotPath(config.dataDir, at);
  await mkdir(join(config.dataDir, 'snapshots'), { recursive: true });
  const schemas = SERVICE_NAMES.flatMap((s) => ['--schema', schemaName(config, s)]);
  try {
    // --serializable-deferrable: one consistent view of every schema, without blocking writers.
    await run('pg_dump', ['--dbname', url, '--no-owner', '--no-privileges', '--clean', '--if-exists', '--serializable-deferrable', '--file', file, ...schemas], {
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    await rm(file, { force: true });
    throw unavailable(err) ?? err;
  }
  return file;
}

/**
 * The answer when pg_dump cannot serve this deployment: not installed where the session service
 * runs, or older than the server (pg_dump refuses newer servers). Undefined for any other
 * failure, which stays an unexpected error. The database URL is never repeated.
 */
function unavailable(err: unknown): ZitiError | undefined {
  const { code, stderr } = err as { code?: unknown; stderr?: unknown };
  if (code === 'ENOENT' || code === 'EACCES') {
    return new ZitiError('UNAVAILABLE', {
      causeMessage: 'snapshots are not available: pg_dump (the PostgreSQL client tools, of the server\'s major version or newer) is not installed where the session service runs',
    });
  }
  const mismatch = /server version: [^;\n]+; pg_dump version: [^\n]+/.exec(typeof stderr === 'string' ? stderr : '');
  if (mismatch) {
    return new ZitiError('UNAVAILABLE', { causeMessage: `snapshots are not available: pg_dump is older than the database server (${mismatch[0]})` });
  }
  return undefined;
}

/** Local clusters (`main.js cluster`) started by tests, each on its own schemas and subjects. */
import type { ChildProcess } from 'node:child_process';
import { TEST_DATABASE_URL, TEST_NATS_URL } from './infra.js';

/** Settings every test cluster shares, plus `extra`; the admin password is `<name>-admin-pw`. */
export function clusterEnv(name: string, opts: { httpPort: number; basePort: number; prefix: string }, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    EDGE_HTTP_ADDR: `127.0.0.1:${opts.httpPort}`,
    EDGE_DATABASE_URL: TEST_DATABASE_URL,
    EDGE_DATABASE_SCHEMA_PREFIX: `${opts.prefix}_`,
    EDGE_NATS_URL: TEST_NATS_URL,
    EDGE_NATS_SUBJECT_PREFIX: `${opts.prefix}.`,
    EDGE_ADMIN_PASSWORD: `${name}-admin-pw`,
    EDGE_KEY_ENCRYPTION_KEY: `${name}-test-key-encryption-secret`,
    EDGE_CLUSTER_BASE_PORT: String(opts.basePort),
    EDGE_LOG_LEVEL: 'warn',
    EDGE_SHUTDOWN_GRACE_MS: '3000',
    ...extra,
  };
}

/** Stops a launcher started by a test (SIGTERM, waiting for its exit) unless it has exited. */
export async function stopLauncher(proc: ChildProcess | undefined): Promise<void> {
  if (!proc || proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
}

/**
 * The controller under test: the launcher started as a child process (distributed: one process
 * per service; or standalone) against the local Postgres and NATS, under its own schema and
 * subject prefix so a run never touches another deployment's data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_NAMES } from '@edge/config';
import { dropSchema, openConnection } from '@edge/db';
import { createHttpClient } from '@edge/testing';
import { connect } from 'nats';

const LAUNCHER = fileURLToPath(new URL('../../deploy/launcher/dist/main.js', import.meta.url));
export const ADMIN = { username: 'admin', password: 'bench-admin-password' };

export interface Target {
  databaseUrl: string;
  natsUrl: string;
  prefix: string;
}

/** gRPC ports of the local cluster: base … base+49 (ten per service). */
export const CLUSTER_PORT_SPAN = 50;
/** /metrics ports of the local cluster: the gateway's, then ten per service (deploy/launcher/src/cluster.ts). */
export const METRICS_PORT_SPAN = 1 + CLUSTER_PORT_SPAN;

/**
 * The environment every run uses: its prefix, its ports (metrics included), and limits that would otherwise
 * throttle the load.
 */
export function controllerEnv(t: Target, port: number, clusterBasePort: number, dataDir: string, metricsBasePort?: number): Record<string, string> {
  return {
    EDGE_HTTP_ADDR: `127.0.0.1:${port}`,
    EDGE_DATABASE_URL: t.databaseUrl,
    EDGE_DATABASE_SCHEMA_PREFIX: `${t.prefix}_`,
    EDGE_NATS_URL: t.natsUrl,
    EDGE_NATS_SUBJECT_PREFIX: `${t.prefix}.`,
    EDGE_DATA_DIR: dataDir,
    EDGE_ADMIN_USERNAME: ADMIN.username,
    EDGE_ADMIN_PASSWORD: ADMIN.password,
    EDGE_KEY_ENCRYPTION_KEY: `${t.prefix}-key-encryption-secret`,
    EDGE_CLUSTER_BASE_PORT: String(clusterBasePort),
    // Read before and after each scenario: gRPC calls and SQL statements per request.
    ...(metricsBasePort === undefined ? {} : { EDGE_METRICS_ADDR: `127.0.0.1:${metricsBasePort}` }),
    EDGE_AUTH_RATE_LIMIT_PER_IP: '1000000',
    EDGE_AUTH_RATE_LIMIT_PER_USERNAME: '1000000',
    EDGE_AUTH_MAX_CONCURRENT: '1000',
    EDGE_LOG_LEVEL: 'warn',
    EDGE_SHUTDOWN_GRACE_MS: '3000',
  };
}

export interface RunningController {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

async function until(probe: () => Promise<boolean>, timeoutMs: number, what: () => string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`controller not ready: ${what()}`);
}

/** Starts the launcher and waits until the API and the services behind it answer. */
export async function startController(mode: 'cluster' | 'standalone', env: Record<string, string>): Promise<RunningController> {
  const child: ChildProcess = spawn(process.execPath, [LAUNCHER, mode], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => { output = (output + d).slice(-4000); });
  child.stderr!.on('data', (d) => { output = (output + d).slice(-4000); });
  const url = `https://${env.EDGE_HTTP_ADDR}`;
  const http = createHttpClient({ baseUrl: url });
  try {
    // An unknown token is 401 only once the auth service answers (503 before).
    await until(async () => {
      if (child.exitCode !== null) throw new Error(`controller exited with ${child.exitCode}: ${output}`);
      return (await http.get('/edge/client/v1/current-identity', { headers: { 'zt-session': 'probe' } })).status === 401;
    }, 120_000, () => output);
  } finally {
    http.close();
  }
  return {
    url,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A scratch data directory for one run. */
export function scratchDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'edge-bench-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Drops the run's schemas and stream. */
export async function cleanup(t: Target): Promise<void> {
  const conn = await openConnection({ url: t.databaseUrl, poolSize: 1 });
  try {
    for (const s of SERVICE_NAMES) await dropSchema(conn, `${t.prefix}_${s}`);
  } finally {
    await conn.close();
  }
  const nc = await connect({ servers: t.natsUrl });
  try {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(`EDGE_${t.prefix}`).catch(() => undefined);
  } finally {
    await nc.close();
  }
}

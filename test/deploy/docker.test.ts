/**
 * deploy/docker and deploy/compose.yaml without a Docker engine: the invariants each image and
 * the compose file must keep, cross-checked with the Helm chart, and the containers' health
 * check script run against real listeners.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, SERVICE_NAMES } from '@edge/config';
import { silentLogger } from '@edge/logging';
import { createRpcServer } from '@edge/rpc';
import { loadChart, REPO_ROOT } from './support/chart.js';
import { kekConsumers } from './support/objects.js';

const COMPONENTS = [...SERVICE_NAMES, 'gateway'] as const;
const chart = loadChart();
const chartValues = chart.values as {
  podSecurityContext: { runAsUser: number };
  metrics: { port: number };
  gateway: { httpPort: number };
  services: Record<string, { grpcPort: number }>;
};
const portOf = (c: string) => (c === 'gateway' ? chartValues.gateway.httpPort : chartValues.services[c]!.grpcPort);

interface Instruction { op: string; args: string }
interface Stage { from: string; name?: string; body: Instruction[] }

/** Splits a Dockerfile into stages of instructions (continuations joined, comments dropped). */
function parseDockerfile(text: string): Stage[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op, args] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
    if (!op) continue;
    if (op.toUpperCase() === 'FROM') {
      const [, from, name] = /^(\S+)(?:\s+AS\s+(\S+))?/i.exec(args!)!;
      stages.push({ from: from!, name, body: [] });
    } else if (stages.length) stages.at(-1)!.body.push({ op: op.toUpperCase(), args: args! });
  }
  return stages;
}

const dockerfile = (c: string) => join(REPO_ROOT, `deploy/docker/${c}.Dockerfile`);
const all = (s: Stage, op: string) => s.body.filter((i) => i.op === op).map((i) => i.args);

describe.each(COMPONENTS)('deploy/docker/%s.Dockerfile', (c) => {
  const stages = parseDockerfile(readFileSync(dockerfile(c), 'utf8'));
  const runtime = stages.at(-1)!;
  const names = stages.map((s) => s.name).filter(Boolean);

  it('builds in one stage and runs from a fresh base image with production dependencies only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const runs = stages.slice(0, -1).flatMap((s) => all(s, 'RUN')).join('\n');
    expect(runs).toMatch(/npm ci\b/);
    expect(runs).toMatch(/npm run build/);
    expect(runs).toMatch(new RegExp(`npm ci --omit=dev .*--workspace=services/${c}\\b`));
    expect(names).not.toContain(runtime.from);
    expect(all(runtime, 'RUN').join('\n')).not.toMatch(/npm (ci|install|run)/);
    const copies = all(runtime, 'COPY');
    expect(copies.every((a) => a.startsWith('--from='))).toBe(true);
    expect(copies.join('\n')).toContain(`/src/services/${c} services/${c}`);
    for (const other of COMPONENTS.filter((o) => o !== c)) expect(copies.join('\n')).not.toContain(`services/${other} `);
  });

  it('copies only what exists in the repository or is built', () => {
    for (const args of all(runtime, 'COPY')) {
      const src = args.split(/\s+/)[1]!.replace(/^\/src\//, '');
      if (src === 'node_modules') continue;
      expect(existsSync(join(REPO_ROOT, src)), src).toBe(true);
    }
  });

  it(`runs as the non-root user the chart expects, with node services/${c}/dist/main.js as PID 1`, () => {
    const user = all(runtime, 'USER').at(-1)!;
    expect(user).toBe(`${chartValues.podSecurityContext.runAsUser}:${chartValues.podSecurityContext.runAsUser}`);
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(JSON.parse(all(runtime, 'ENTRYPOINT').at(-1)!)).toEqual(['node', `services/${c}/dist/main.js`]);
    expect(existsSync(join(REPO_ROOT, `services/${c}/src/main.ts`))).toBe(true);
  });

  it('exposes the ports the chart probes and scrapes, and checks its own health', () => {
    expect(all(runtime, 'EXPOSE')).toEqual([`${portOf(c)} ${chartValues.metrics.port}`]);
    const hc = all(runtime, 'HEALTHCHECK').at(-1)!;
    expect(JSON.parse(hc.slice(hc.indexOf('CMD') + 3))).toEqual(['node', 'deploy/docker/healthcheck.mjs', c]);
  });
});

describe('deploy/docker/session.Dockerfile', () => {
  const text = readFileSync(dockerfile('session'), 'utf8');
  const runtime = parseDockerfile(text).at(-1)!;
  const compose = readFileSync(join(REPO_ROOT, 'deploy/compose.yaml'), 'utf8');

  it('ships pg_dump (snapshots) of the Postgres server\'s major version or newer, first on PATH', () => {
    const major = Number(/^ARG PG_CLIENT_MAJOR=(\d+)$/m.exec(text)?.[1]);
    expect(all(runtime, 'ARG')).toContain('PG_CLIENT_MAJOR');
    expect(all(runtime, 'RUN').join('\n')).toMatch(/apt-get install .*postgresql-client-\$\{PG_CLIENT_MAJOR\}/);
    expect(all(runtime, 'ENV').join('\n')).toMatch(/PATH=\/usr\/lib\/postgresql\/\$\{PG_CLIENT_MAJOR\}\/bin:\$PATH/);
    // pg_dump refuses servers newer than itself: at least the compose file's server.
    const server = Number(/image: postgres:(\d+)/.exec(compose)?.[1]);
    expect(server).toBeGreaterThanOrEqual(15);
    expect(major).toBeGreaterThanOrEqual(server);
    for (const other of COMPONENTS.filter((c) => c !== 'session')) expect(readFileSync(dockerfile(other), 'utf8')).not.toContain('postgresql-client');
  });
});

describe('the build context', () => {
  it('ignores host builds and dependencies, so images build from sources alone', () => {
    const ignored = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const p of ['**/node_modules', '**/dist', '**/*.tsbuildinfo', 'libs/proto/src/gen', 'data']) expect(ignored).toContain(p);
  });
});

describe('deploy/compose.yaml', () => {
  type ComposeService = { build?: { context: string; dockerfile: string }; environment?: Record<string, string>; depends_on?: Record<string, { condition: string }>; ports?: string[]; read_only?: boolean; volumes?: string[]; tmpfs?: string[] };
  const compose = parse(readFileSync(join(REPO_ROOT, 'deploy/compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
  const services = compose.services;

  it('runs Postgres, NATS and every component, each built from its own Dockerfile', () => {
    expect(Object.keys(services).sort()).toEqual([...COMPONENTS, 'nats', 'postgres'].sort());
    for (const c of COMPONENTS) {
      const build = services[c]!.build!;
      expect(join(REPO_ROOT, 'deploy', build.context)).toBe(REPO_ROOT.replace(/\/$/, ''));
      expect(build.dockerfile).toBe(`deploy/docker/${c}.Dockerfile`);
      expect(existsSync(join(REPO_ROOT, build.dockerfile))).toBe(true);
      expect(services[c]!.read_only).toBe(true);
      expect(services[c]!.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' }, nats: { condition: 'service_healthy' } });
    }
  });

  it('wires every gRPC target to the port its service listens on, through dns so replicas balance', () => {
    for (const c of COMPONENTS) {
      const env = services[c]!.environment!;
      expect(env.EDGE_DATABASE_URL).toMatch(/@postgres:5432\//);
      expect(env.EDGE_NATS_URL).toBe('nats://nats:4222');
      for (const s of SERVICE_NAMES) {
        const listen = services[s]!.environment!.EDGE_GRPC_LISTEN_ADDR!;
        expect(env[`EDGE_${s.toUpperCase()}_GRPC_ADDR`]).toBe(`dns:///${s}:${listen.split(':').pop()}`);
        expect(Number(listen.split(':').pop())).toBe(portOf(s));
      }
    }
    const known = new Set(readFileSync(join(REPO_ROOT, 'libs/config/src/index.ts'), 'utf8').match(/EDGE_[A-Z0-9_]+(?=:)/g));
    for (const c of COMPONENTS) {
      // Compose substitutes ${VAR:-default} from the shell; here, with an empty shell.
      const env = Object.fromEntries(Object.entries(services[c]!.environment!).map(([k, v]) => [k, String(v).replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1')]));
      expect(Object.keys(env).filter((k) => !known.has(k)), c).toEqual([]);
      expect(() => loadConfig(env), c).not.toThrow();
    }
    for (const c of COMPONENTS) expect(services[c]!.environment!.EDGE_METRICS_ADDR).toBe(`0.0.0.0:${chartValues.metrics.port}`);
    expect(services.gateway!.environment!.EDGE_HTTP_ADDR).toBe(`0.0.0.0:${portOf('gateway')}`);
    expect(services.gateway!.ports).toContain(`${portOf('gateway')}:${portOf('gateway')}`);
  });
});

describe('deploy/compose.yaml state', () => {
  const compose = parse(readFileSync(join(REPO_ROOT, 'deploy/compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, { environment: Record<string, string>; volumes?: string[]; tmpfs?: string[] }>; volumes: Record<string, unknown> };
  const dataOf = (c: string) => compose.services[c]!.volumes?.find((v) => v.endsWith(':/data'))?.split(':')[0];

  it('gives every component that seals secrets the same key-encryption key: the shell\'s, else one shared key file', () => {
    const consumers = kekConsumers();
    expect(consumers).toEqual(['auth', 'pki']);
    const keys = new Set(consumers.map((c) => compose.services[c]!.environment.EDGE_KEY_ENCRYPTION_KEY));
    expect([...keys]).toEqual(['${EDGE_KEY_ENCRYPTION_KEY:-}']);
    // Without it each process keeps <EDGE_DATA_DIR>/pki.key: one named volume for all of them.
    const volumes = new Set(consumers.map(dataOf));
    expect(volumes.size).toBe(1);
    expect(Object.keys(compose.volumes)).toContain([...volumes][0]);
    for (const c of consumers) expect(compose.services[c]!.tmpfs ?? []).not.toContain('/data');
  });

  it('keeps database snapshots (the session service\'s /data/snapshots) in a named volume', () => {
    expect(Object.keys(compose.volumes)).toContain(dataOf('session'));
    expect(compose.services.session!.tmpfs ?? []).not.toContain('/data');
  });
});

describe('deploy/docker/healthcheck.mjs', () => {
  const script = join(REPO_ROOT, 'deploy/docker/healthcheck.mjs');
  // Asynchronous: the listeners under test run in this process and must keep answering.
  const check = (component: string, env: Record<string, string>) =>
    new Promise<number | null>((resolve) => {
      spawn(process.execPath, [script, component], { env: { PATH: process.env.PATH, ...env }, stdio: 'ignore', timeout: 20_000 }).on('exit', resolve);
    });

  it('passes only while a gRPC service answers SERVING on its listen address', async () => {
    const server = createRpcServer('identity', silentLogger());
    const port = await server.listen('127.0.0.1:0');
    const env = { EDGE_GRPC_LISTEN_ADDR: `0.0.0.0:${port}` };
    try {
      expect(await check('identity', env)).toBe(1);
      server.setServing(true);
      expect(await check('identity', env)).toBe(0);
    } finally {
      await server.stop(100);
    }
    expect(await check('identity', env)).toBe(1);
    expect(await check('nonsense', env)).toBe(2);
  });

  it('under internal mTLS, which it holds no certificate for, passes only while the service port accepts connections', async () => {
    const listener = createTcpServer((socket) => socket.destroy());
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    const env = { EDGE_GRPC_LISTEN_ADDR: `0.0.0.0:${(listener.address() as { port: number }).port}`, EDGE_GRPC_TLS: 'mtls', EDGE_GRPC_JOIN_TOKEN: 'd'.repeat(64) };
    expect(await check('identity', env)).toBe(0);
    await new Promise((r) => listener.close(r));
    expect(await check('identity', env)).toBe(1);
  });

  const dir = mkdtempSync(join(tmpdir(), 'edge-hc-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const openssl = ['/usr/bin/openssl', '/usr/local/bin/openssl'].find(existsSync);

  it.skipIf(!openssl)('passes only while the gateway answers GET /version over HTTPS (skipped without openssl)', async () => {
    execFileSync(openssl!, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem')], { stdio: 'ignore' });
    let status = 503;
    const server = createServer({ key: readFileSync(join(dir, 'k.pem')), cert: readFileSync(join(dir, 'c.pem')) }, (req, res) => {
      res.statusCode = req.url === '/version' ? status : 404;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    // As in the gateway's container, which listens on every address and is told the one clients use.
    const env = { EDGE_HTTP_ADDR: `0.0.0.0:${(server.address() as { port: number }).port}`, EDGE_ADVERTISED_ADDRESS: 'edge.example.com:443' };
    try {
      expect(await check('gateway', env)).toBe(1);
      status = 200;
      expect(await check('gateway', env)).toBe(0);
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect(await check('gateway', env)).toBe(1);
  });
});

/**
 * The gateway's own cost per request: its real HTTP layer (fastify setup, hooks, the route
 * helper, access log, metrics, tracing as a process without an exporter has it) serving
 * `GET /edge/client/v1/current-identity`, with the services replaced by in-process stand-ins
 * answering a fixed principal and identity, next to a bare fastify HTTPS server with the same
 * TLS setup and a trivial route, measured in the same run.
 *
 *   node bench/dist/gateway-overhead.js [--seconds 5] [--rounds 3] [--connections 16]
 *     [--log-level warn] [--same-body] [--grpc] [--against <checkout>] [--prof <dir>]
 *
 * Each server runs in a child process of its own, so the load generator does not share its
 * thread; rounds alternate between them and medians are reported, with the CPU time the server
 * process spent per request (user + system, from /proc), which is steadier than req/s on a
 * shared machine. `--same-body` makes the bare server answer the gateway's own body (so the
 * difference is the gateway's work, not the size of its answer). `--against` also serves the
 * gateway of another built checkout (its services/gateway and libs dist), for a before/after in
 * one run. `--grpc` puts the stand-ins behind a gRPC server in a process of their own, so the
 * gateway's side of its calls (client, metadata, protobuf, HTTP/2) is part of what is measured.
 * `--prof` writes a CPU profile of each server into `<dir>` (`<kind>.cpuprofile`; open
 * them in Chrome DevTools or speedscope).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Bus } from '@edge/bus';
import { loadConfig } from '@edge/config';
import type { Logger, LoggerSettings } from '@edge/logging';
import type { TelemetryOptions } from '@edge/telemetry';
import { selfSigned } from './self-signed.js';

const PATH = '/edge/client/v1/current-identity';
const TOKEN = 'bench-session-token';
const SELF = fileURLToPath(import.meta.url);
/** The checkout this script was built in. */
const OWN_CHECKOUT = fileURLToPath(new URL('../..', import.meta.url));

/** The bare server, this checkout's gateway, and another checkout's (--against). */
type Kind = 'bare' | 'gateway' | 'against';

/** The HTTPS options the gateway listens with (services/gateway/src/http/app.ts). */
async function tlsOptions(name: string) {
  const { cert, key } = await selfSigned(name);
  return { cert, key, ca: cert, requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' as const };
}

/** A trivial route, or one answering `body` (the gateway's own answer, with --same-body). */
async function bareServer(body: unknown): Promise<FastifyInstance> {
  const app = Fastify({ https: await tlsOptions('edge-bench-bare'), logger: false });
  const answer = body ?? { data: { id: 'bench-identity', name: 'bench' }, meta: {} };
  app.get(PATH, async () => answer);
  return app as unknown as FastifyInstance;
}

/** What the stand-in services answer: one API session of a non-admin identity, and that identity. */
function standInAnswers() {
  const now = new Date().toISOString();
  const expiresAt = new Date(Date.now() + 24 * 3_600_000).toISOString();
  const apiSession = {
    id: 'bench-api-session', token: '', identityId: 'bench-identity', identityName: 'bench', authenticatorId: 'bench-authenticator',
    configTypes: [], ipAddress: '127.0.0.1', isMfaRequired: false, isMfaComplete: false, isCertExtendable: false,
    lastActivityAt: now, expiresAt, expirationSeconds: 86_400, tagsJson: '{}', createdAt: now, updatedAt: now, isAdmin: false,
    authQueries: [], isCertExtendRequested: false, isCertKeyRollRequested: false,
  };
  const principal = { apiSession, isAdmin: false, isDefaultAdmin: false, isExtJwtPending: false, permissions: [], roleAttributes: ['bench'], mfaPassedAt: '' };
  const identity = {
    id: 'bench-identity', name: 'bench', typeId: 'Default', isAdmin: false, isDefaultAdmin: false, roleAttributes: ['bench'],
    tagsJson: '{"team":"bench"}', appDataJson: '{}', defaultHostingCost: 0, defaultHostingPrecedence: 'default',
    serviceHostingCosts: {}, serviceHostingPrecedences: {}, authPolicyId: 'default', disabled: false,
    envInfo: { os: 'linux', arch: 'x64' }, sdkInfo: { type: 'ziti-sdk-c', version: '1.0.0' }, permissions: [],
    createdAt: now, updatedAt: now,
  };
  const summary = { identityId: 'bench-identity', updbId: 'bench-authenticator', updbUsername: 'bench', hasApiSession: true, isMfaEnabled: false };
  return { principal, identity, summaries: { summaries: [summary] } };
}

/** The stand-ins as the gateway's clients, in process. */
function standIns() {
  const a = standInAnswers();
  const services: Record<string, Record<string, (req: unknown) => Promise<unknown>>> = {
    auth: {
      validateSession: async () => a.principal,
      getIdentityAuthSummaries: async () => a.summaries,
    },
    identity: { getIdentity: async () => a.identity },
  };
  // Any other call fails loudly: the scenario is not what it claims to be.
  return new Proxy({}, {
    get: (_t, service) => new Proxy(services[String(service)] ?? {}, {
      get: (calls, method) => calls[String(method)] ?? (async () => { throw new Error(`no stand-in for ${String(service)}.${String(method)}`); }),
    }),
  });
}

/** The parts of the gateway (and of the libraries it is started with) the harness assembles, as built. */
interface GatewayParts {
  createClients(config: ReturnType<typeof loadConfig>): unknown;
  startTelemetry(opts: TelemetryOptions): unknown;
  createLogger(opts: LoggerSettings): Logger;
  createMemoryBus(): Bus;
  createApp(tls: { cert: string; key: string; ca: string }, log: Logger, corsAllowedOrigins: readonly string[]): FastifyInstance;
  installInstanceId(app: FastifyInstance, id: string): void;
  instanceId(caPem: string, version: string): string;
  registerRoutes(app: FastifyInstance, config: ReturnType<typeof loadConfig>, clients: unknown, cache: unknown): unknown;
  createSessionCache(clients: unknown, bus: unknown): { start(): Promise<void> };
  VERSION: string;
}

/** Loads them from the build of `checkout` (a directory holding services/ and libs/). */
async function gatewayParts(checkout: string): Promise<GatewayParts> {
  const files = [
    'services/gateway/dist/http/app.js', 'services/gateway/dist/http/instance-id.js', 'services/gateway/dist/gateway.js',
    'services/gateway/dist/http/session-cache.js', 'services/gateway/dist/routes/root.js', 'services/gateway/dist/clients.js',
    'libs/telemetry/dist/index.js', 'libs/logging/dist/index.js', 'libs/bus/dist/index.js',
  ];
  const parts = await Promise.all(files.map((file) => import(pathToFileURL(join(checkout, file)).href) as Promise<Partial<GatewayParts>>));
  return Object.assign({}, ...parts) as GatewayParts;
}

/** The gateway as createGateway assembles it (gateway.ts), the services replaced by stand-ins. */
async function gatewayServer(checkout: string, logLevel: string): Promise<FastifyInstance> {
  const gw = await gatewayParts(checkout);
  // As the gateway process starts it without an exporter: propagation and context, no spans kept.
  gw.startTelemetry({ serviceName: 'gateway' });
  // With --grpc the stand-ins answer over gRPC, from the process named by this variable.
  const target = process.env.EDGE_BENCH_STAND_INS;
  const config = loadConfig(target ? { EDGE_AUTH_GRPC_ADDR: target, EDGE_IDENTITY_GRPC_ADDR: target } : {});
  const { cert, key } = await selfSigned('edge-bench-gateway');
  // Lines are serialized as in production and then dropped.
  const log = gw.createLogger({ level: logLevel, format: 'json', destination: { write: () => true } }).child({ service: 'gateway' });
  const clients = target ? gw.createClients(config) : standIns();
  const cache = gw.createSessionCache(clients, gw.createMemoryBus());
  await cache.start();
  const app = gw.createApp({ cert, key, ca: cert }, log, config.http.corsAllowedOrigins);
  gw.installInstanceId(app, gw.instanceId(cert, gw.VERSION));
  gw.registerRoutes(app, config, clients, cache);
  return app;
}

/** Child (--grpc): the stand-ins behind a gRPC server of this checkout's libs/rpc; prints `ready <port>`. */
async function serveStandIns(): Promise<void> {
  const { createRpcServer, stubHandlers } = await import('@edge/rpc');
  const { contracts } = await import('@edge/proto');
  const { silentLogger } = await import('@edge/logging');
  const a = standInAnswers();
  const server = createRpcServer('stand-ins', silentLogger(), { tls: null });
  server.add(contracts.auth(), stubHandlers({ ValidateSession: async () => a.principal, GetIdentityAuthSummaries: async () => a.summaries } as never));
  server.add(contracts.identity(), stubHandlers({ GetIdentity: async () => a.identity } as never));
  const port = await server.listen('127.0.0.1:0');
  server.setServing(true);
  process.on('SIGTERM', () => void server.stop(0).finally(() => process.exit(0)));
  process.stdout.write(`ready ${port}\n`);
}

/** Child: serves one kind on a free port, prints `ready <port>`, exits on SIGTERM (writing its profile). */
async function serve(kind: Kind, arg: string, checkout: string): Promise<void> {
  const app = kind === 'bare' ? await bareServer(arg ? JSON.parse(arg) : undefined) : await gatewayServer(checkout, arg);
  await app.listen({ host: '127.0.0.1', port: 0 });
  process.on('SIGTERM', () => void app.close().finally(() => process.exit(0)));
  process.stdout.write(`ready ${(app.server.address() as { port: number }).port}\n`);
}

interface Server {
  kind: Kind;
  child: ChildProcess;
  port: number;
}

/**
 * Starts a server child; `arg` is a gateway's log level, or the body the bare server answers
 * ('' for its own); `checkout` is where a gateway is loaded from.
 */
async function start(kind: Kind | 'stand-ins', arg: string, profDir: string | undefined, checkout = OWN_CHECKOUT, env: Record<string, string> = {}): Promise<Server> {
  const flags = profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${kind}.cpuprofile`] : [];
  const child = spawn(process.execPath, [...flags, SELF, 'serve', kind, arg, checkout], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  for await (const line of createInterface({ input: child.stdout! })) {
    const m = /^ready (\d+)$/.exec(line);
    if (m) return { kind: kind as Kind, child, port: Number(m[1]) };
  }
  throw new Error(`the ${kind} server exited before listening`);
}

/** The body of one answer of the server on `port`. */
async function fetchBody(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    https.get({ host: '127.0.0.1', port, path: PATH, headers: { 'zt-session': TOKEN }, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => resolve(body)).on('error', reject);
    }).on('error', reject);
  });
}

async function stop(s: Server): Promise<void> {
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  s.child.kill('SIGTERM');
  await exited;
}

/** CPU seconds a process has used so far, in user space and in the kernel. */
function cpuSeconds(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

interface Run {
  requests: number;
  rps: number;
  /** CPU ms per request in user space (JavaScript, TLS) and in the kernel (mostly socket writes). */
  userMs: number;
  systemMs: number;
  p50: number;
}

async function load(s: Server, seconds: number, connections: number): Promise<Run> {
  const before = cpuSeconds(s.child.pid!);
  const r = await autocannon({
    url: `https://127.0.0.1:${s.port}${PATH}`,
    connections,
    duration: seconds,
    headers: { 'zt-session': TOKEN, accept: 'application/json' },
  });
  const after = cpuSeconds(s.child.pid!);
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${s.kind}: ${r.non2xx} answers outside 2xx, ${r.errors} errors`);
  const perRequest = (seconds: number) => (seconds * 1000) / r.requests.total;
  return {
    requests: r.requests.total,
    rps: r.requests.total / r.duration,
    userMs: perRequest(after.user - before.user),
    systemMs: perRequest(after.system - before.system),
    p50: r.latency.p50,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '16' },
      'log-level': { type: 'string', default: 'warn' },
      prof: { type: 'string' },
      'same-body': { type: 'boolean', default: false },
      against: { type: 'string' },
      grpc: { type: 'boolean', default: false },
    },
  });
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const logLevel = values['log-level'];
  const standInsChild = values.grpc ? await start('stand-ins', '', undefined) : undefined;
  const env: Record<string, string> = standInsChild ? { EDGE_BENCH_STAND_INS: `127.0.0.1:${standInsChild.port}` } : {};
  const gatewayChild = await start('gateway', logLevel, values.prof, OWN_CHECKOUT, env);
  // The bare server answers the gateway's own body: what is left is the gateway's work, not the size of its answer.
  const bareBody = values['same-body'] ? await fetchBody(gatewayChild.port) : '';
  const servers = [await start('bare', bareBody, values.prof), gatewayChild];
  if (values.against) servers.push(await start('against', logLevel, values.prof, resolve(values.against), env));
  try {
    const runs: Record<Kind, Run[]> = { bare: [], gateway: [], against: [] };
    // Warm-up: JIT and the session cache, not counted.
    const warmUp: Record<Kind, Run[]> = { bare: [], gateway: [], against: [] };
    for (const s of servers) warmUp[s.kind].push(await load(s, 2, connections));
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const s of round % 2 ? [...servers].reverse() : servers) runs[s.kind].push(await load(s, seconds, connections));
    }
    const summary = (kind: Kind) => ({
      rps: median(runs[kind].map((r) => r.rps)),
      user: median(runs[kind].map((r) => r.userMs)),
      system: median(runs[kind].map((r) => r.systemMs)),
      p50: median(runs[kind].map((r) => r.p50)),
    });
    const bare = summary('bare');
    const gateway = summary('gateway');
    const line = (name: string, s: typeof bare) =>
      `${name.padEnd(8)} ${s.rps.toFixed(0).padStart(7)} req/s  CPU/request ${(s.user + s.system).toFixed(3)} ms (user ${s.user.toFixed(3)}, system ${s.system.toFixed(3)})  p50 ${s.p50} ms`;
    const bareAnswers = values['same-body'] ? "the gateway's answer" : 'a trivial answer';
    const standInsAt = values.grpc ? 'over gRPC' : 'in process';
    process.stdout.write(`GET ${PATH}, ${connections} connections, ${values.rounds} × ${seconds} s, log level ${logLevel}, bare with ${bareAnswers}, stand-ins ${standInsAt}\n`);
    const own = (g: typeof bare) => `${((g.rps / bare.rps) * 100).toFixed(1)}% of bare req/s; its own user CPU ${(g.user - bare.user).toFixed(3)} ms/request`;
    process.stdout.write(`${line('bare', bare)}\n${line('gateway', gateway)}\n`);
    process.stdout.write(`ratio    ${own(gateway)}\n`);
    if (values.against) {
      const against = summary('against');
      process.stdout.write(`${line('against', against)}  (${resolve(values.against)})\n`);
      process.stdout.write(`ratio    ${own(against)}\n`);
    }
    // What a profile (--prof) divides its times by.
    const served = (kind: Kind) => [...warmUp[kind], ...runs[kind]].reduce((n, r) => n + r.requests, 0);
    process.stdout.write(`served   ${servers.map((s) => `${s.kind} ${served(s.kind)}`).join(', ')} requests in all\n`);
  } finally {
    await Promise.all([...servers, ...(standInsChild ? [standInsChild] : [])].map(stop));
  }
}

if (process.argv[2] === 'serve' && process.argv[3] === 'stand-ins') await serveStandIns();
else if (process.argv[2] === 'serve') await serve(process.argv[3] as Kind, process.argv[4] ?? '', process.argv[5] ?? OWN_CHECKOUT);
else await main();

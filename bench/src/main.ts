/**
 * `npm run bench -- [--scale default|small] [--seconds N] [--connections N] [--rounds N]
 * [--standalone] [--compare FILE] [--out DIR]`: imports the benchmark network through the bulk
 * path, starts the controller (distributed by default) against the local Postgres and NATS,
 * measures the baseline and every scenario for a fixed time, prints a table and writes
 * `bench/results/<date>.json`. Exits 1 when a figure is invalid (any failed request).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@edge/config';
import { importDataset } from '@edge/launcher';
import { createLogger } from '@edge/logging';
import { freePort, freePortBlock } from '@edge/testing';
import { cleanup, CLUSTER_PORT_SPAN, METRICS_PORT_SPAN, controllerEnv, scratchDir, startController, type Target } from './controller.js';
import { countPerRequest, metricsEndpoints } from './counts.js';
import { buildNetwork, SCALES } from './dataset.js';
import { runLoad, type Request } from './load.js';
import { measure } from './processes.js';
import { compare, table, write, type BenchResult, type ScenarioResult } from './report.js';
import { logInEveryone, policyPropagation, scenarios } from './scenarios.js';
import { measureScrypt } from './scrypt.js';

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: 'default' },
    seconds: { type: 'string' },
    connections: { type: 'string', default: '16' },
    rounds: { type: 'string' },
    standalone: { type: 'boolean', default: false },
    compare: { type: 'string' },
    only: { type: 'string' },
    out: { type: 'string', default: fileURLToPath(new URL('../results', import.meta.url)) },
  },
});
if (args.scale !== 'default' && args.scale !== 'small') throw new Error('--scale must be default or small');
const scale = SCALES[args.scale];
const small = args.scale === 'small';
const seconds = Number(args.seconds ?? (small ? 3 : 10));
const connections = Number(args.connections);
const rounds = Number(args.rounds ?? (small ? 3 : 10));
const warmup = Math.max(1, Math.round(seconds / 3));
const mode = args.standalone ? 'standalone' : 'cluster';
const say = (s: string) => process.stdout.write(`${s}\n`);

const target: Target = {
  databaseUrl: process.env.EDGE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.EDGE_NATS_URL ?? 'nats://127.0.0.1:4222',
  prefix: `bench${randomBytes(3).toString('hex')}`,
};

/** Starts the baseline server as its own process. */
async function startBaseline(schema: string): Promise<{ url: string; pid: number; stop(): void }> {
  const port = await freePort();
  const child = spawn(process.execPath, [fileURLToPath(new URL('./baseline-server.js', import.meta.url)), target.databaseUrl, schema, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('ready')) resolve(); });
    child.once('exit', (code) => reject(new Error(`baseline server exited with ${code}`)));
  });
  return { url: `https://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}

/**
 * Warms up, then measures one scenario and the process tree serving it; with `metrics` (the
 * controller's endpoints), then counts the gRPC calls and SQL statements per request over about
 * a second's worth of further requests (counts.ts).
 */
async function run(name: string, description: string, url: string, pid: number, next: () => Request, metrics?: string[]): Promise<ScenarioResult> {
  await runLoad(url, next, { connections, seconds: warmup });
  const { result, cpuPercent, peakRssMb } = await measure(pid, () => runLoad(url, next, { connections, seconds }));
  const amount = Math.max(2 * connections, Math.round(result.requestsPerSecond));
  const counts = metrics && await countPerRequest(metrics, () => runLoad(url, next, { connections, amount }));
  // The ratio is set once the baseline's second measurement is in.
  const s = { name, description, ...result, ratio: 1, valid: result.errors === 0 && result.non2xx === 0 && result.requests > 0, cpuPercent, peakRssMb, ...(counts ? { counts } : {}) };
  const perReq = counts ? ` (${counts.grpcCallsPerRequest} gRPC calls, ${counts.sqlStatementsPerRequest} SQL statements per request)` : '';
  say(`  ${name}: ${s.requestsPerSecond} req/s${perReq}${s.valid ? '' : ` INVALID (errors ${s.errors}, non-2xx ${s.non2xx}: ${JSON.stringify(s.statusCodes)})`}`);
  return s;
}

/** The run of the median rate (the lower middle of an even count). */
const median = (runs: ScenarioResult[]): ScenarioResult => [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor((runs.length - 1) / 2)]!;

const log = createLogger({ level: 'warn', name: 'bench' });
const dir = scratchDir();
// One block: the cluster's gRPC ports, then its /metrics ports.
const portBlock = await freePortBlock(CLUSTER_PORT_SPAN + METRICS_PORT_SPAN);
const env = controllerEnv(target, await freePort(), portBlock, dir.path, portBlock + CLUSTER_PORT_SPAN);
const metrics = metricsEndpoints(mode, env.EDGE_METRICS_ADDR!, { ...process.env, ...env });
const network = buildNetwork(scale);
let controller: Awaited<ReturnType<typeof startController>> | undefined;
let baseline: Awaited<ReturnType<typeof startBaseline>> | undefined;
try {
  say(`importing ${scale.identities} identities, ${scale.services} services, ${scale.edgeRouters} edge routers, ${scale.policies} policies of each kind`);
  const t0 = performance.now();
  const ids = await importDataset(loadConfig(env), network.dataset, log);
  const importSeconds = Math.round((performance.now() - t0) / 100) / 10;
  say(`starting the controller (${mode})`);
  controller = await startController(mode, env);
  baseline = await startBaseline(`${target.prefix}_identity`);
  const { admin, clients } = await logInEveryone(controller.url, network);

  say('measuring');
  const measureBaseline = () => run('baseline', 'bare fastify HTTPS, one indexed Postgres read', baseline!.url, baseline!.pid,
    () => ({ method: 'GET', path: `/identities/${ids.identities[Math.floor(Math.random() * ids.identities.length)]}` }));
  const results: ScenarioResult[] = [];
  const baselines: ScenarioResult[] = [];
  const wanted = args.only ? new Set(args.only.split(',').map((n) => n.trim())) : undefined;
  const all = scenarios(network, admin, clients);
  const unknown = [...(wanted ?? [])].filter((n) => n !== 'policy-propagation' && n !== 'scrypt' && !all.some((s) => s.name === n));
  if (unknown.length) throw new Error(`--only: no scenario ${unknown.join(', ')} (there are ${all.map((s) => s.name).join(', ')})`);
  // As many verifications in flight as the auth service would run for the login scenario's connections.
  const measureRawScrypt = () => measureScrypt(env, Math.min(connections, Number(env.EDGE_AUTH_MAX_CONCURRENT)), warmup, seconds);
  let scrypt: ScenarioResult | undefined;
  // Each scenario is measured right after a baseline run of its own and its ratio is to that run:
  // the speed of a shared machine drifts over a run by more than most changes being measured.
  // The raw scrypt rate is measured right after the login scenario, for the same reason.
  for (const s of all.filter((x) => !wanted || wanted.has(x.name))) {
    const base = await measureBaseline();
    baselines.push(base);
    const result = await run(s.name, s.description, controller.url, controller.pid, s.next, metrics);
    result.baselineRequestsPerSecond = base.requestsPerSecond;
    result.ratio = base.requestsPerSecond > 0 ? Math.round((result.requestsPerSecond / base.requestsPerSecond) * 1000) / 1000 : 0;
    results.push(result);
    if (s.name === 'authenticate') scrypt = await measureRawScrypt();
  }
  if (!scrypt && (wanted?.has('scrypt') || wanted?.has('authenticate-sdk'))) scrypt = await measureRawScrypt();
  if (baselines.length === 0) baselines.push(await measureBaseline());
  if (scrypt) say(`  scrypt: ${scrypt.requestsPerSecond} verifications/s`);
  const login = results.find((s) => s.name === 'authenticate');
  const sdkLogin = results.find((s) => s.name === 'authenticate-sdk');
  const toScrypt = (s: ScenarioResult) => Math.round((s.requestsPerSecond / scrypt!.requestsPerSecond) * 1000) / 1000;
  const propagation = wanted && !wanted.has('policy-propagation')
    ? { p50Ms: 0, maxMs: 0, rounds: 0, errors: 0, samplesMs: [] }
    : await policyPropagation(controller.url, network, admin, clients[0]!, rounds);

  const result: BenchResult = {
    date: new Date().toISOString(), mode, scale: args.scale, seconds, connections,
    machine: { cpus: cpus().length, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version },
    dataset: { ...Object.fromEntries(Object.entries(ids).map(([k, v]) => [k, v.length])), importSeconds },
    baseline: median(baselines), baselineRuns: baselines.map((b) => b.requestsPerSecond), scenarios: results, policyPropagation: { ...propagation, valid: propagation.errors === 0 },
    ...(scrypt ? { scrypt } : {}),
    ...(scrypt && login && scrypt.requestsPerSecond > 0 ? { authenticateToScrypt: toScrypt(login) } : {}),
    ...(scrypt && sdkLogin && scrypt.requestsPerSecond > 0 ? { sdkAuthenticateToScrypt: toScrypt(sdkLogin) } : {}),
  };
  say('');
  say(table(result));
  say(`\nwritten to ${write(args.out, result)}`);
  if (args.compare) say(compare(result, args.compare));
  process.exitCode = [...baselines, ...results].every((s) => s.valid) && result.policyPropagation.valid ? 0 : 1;
} finally {
  baseline?.stop();
  await controller?.stop();
  await cleanup(target).catch((err: unknown) => log.warn({ err }, 'cleanup failed'));
  dir.remove();
}

/**
 * What the gRPC wrappers of @edge/rpc cost per call: one trivial unary method (PkiService's
 * GetCaCerts, answered from memory) served and called on loopback through createRpcServer and
 * createRpcClient, and the same method through bare @grpc/grpc-js, in one process, alternating
 * rounds of sequential calls and of calls with many in flight. Prints calls/s and CPU time per
 * call of each, and their ratios (1 means the wrappers cost nothing; below 1, what fraction of
 * bare grpc-js's rate is left).
 *
 * `node bench/dist/rpc-overhead.js [--otel off|idle|spans] [--sequential N] [--concurrent M]
 * [--inflight K] [--rounds R] [--only bare|ours] [--bare-metadata]`. `--otel idle` (the default) is what a process runs without an
 * OTLP endpoint: startTelemetry with no span processor (context manager and propagator, no
 * tracer provider); `spans` records every span into memory; `off` never starts telemetry.
 */
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { contracts, type PkiServiceClient, type PkiServiceHandlers } from '@edge/proto';
import { silentLogger } from '@edge/logging';
import { PRINCIPAL_KEY, createRpcClient, createRpcServer, runWithContext, stubHandlers, type CallerPrincipal, type RequestContext } from '@edge/rpc';
import { startTelemetry } from '@edge/telemetry';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

const { values: args } = parseArgs({
  options: {
    otel: { type: 'string', default: 'idle' },
    sequential: { type: 'string', default: '4000' },
    concurrent: { type: 'string', default: '20000' },
    inflight: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '5' },
    /** For a CPU profile of one side: `bare` or `ours` only. */
    only: { type: 'string' },
    /** Bare calls carry the metadata ours do (request id, actor, principal): what is left is the wrapping. */
    'bare-metadata': { type: 'boolean', default: false },
  },
});
const SEQUENTIAL = Number(args.sequential);
const CONCURRENT = Number(args.concurrent);
const INFLIGHT = Number(args.inflight);
const ROUNDS = Number(args.rounds);
const ANSWER = { pkcs7Base64: '', pem: 'PEM' };

const exporter = new InMemorySpanExporter();
if (args.otel === 'idle') startTelemetry({ serviceName: 'rpc-overhead' });
else if (args.otel === 'spans') startTelemetry({ serviceName: 'rpc-overhead', spanProcessors: [new SimpleSpanProcessor(exporter)] });
else if (args.otel !== 'off') throw new Error(`--otel is off, idle or spans, not ${args.otel}`);

/** The context a gateway request gives its calls: request id, actor and principal. */
const principal: CallerPrincipal = {
  identityId: 'id-bench', name: 'bench admin', isAdmin: true, apiSessionId: 'as-bench',
  roleAttributes: ['bench', 'routers', 'clients'], permissions: [], configTypes: ['all'],
  mfa: { required: false, complete: false },
};
const requestContext = (): RequestContext => ({ requestId: 'req-bench', actorId: 'id-bench', principal });

type Call = () => Promise<unknown>;

interface Target {
  call: Call;
  /** Runs a worker (a run of calls) in the context the calls are made in. */
  enter: <T>(worker: () => T) => T;
  close: () => Promise<void>;
}

async function ours(): Promise<Target> {
  const server = createRpcServer('pki', silentLogger(), { tls: null });
  server.add<PkiServiceHandlers>(contracts.pki(), stubHandlers<PkiServiceHandlers>({ GetCaCerts: async () => ANSWER }));
  const port = await server.listen('127.0.0.1:0');
  server.setServing(true);
  const client = createRpcClient(contracts.pki(), `127.0.0.1:${port}`, { deadlineMs: 5000, tls: null });
  const ctx = requestContext();
  return {
    call: () => client.getCaCerts({}),
    // As in the gateway: the context is entered once per request, however many calls it makes.
    enter: (worker) => runWithContext(ctx, worker),
    close: async () => {
      client.close();
      await server.stop(100);
    },
  };
}

async function bare(): Promise<Target> {
  const server = new grpc.Server();
  server.addService(contracts.pki().service, {
    GetCaCerts: (_call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => cb(null, ANSWER),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  const Client = contracts.pki();
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as PkiServiceClient;
  const ctx = requestContext();
  const principalValue = Buffer.from(JSON.stringify(ctx.principal));
  /** With --bare-metadata, the request context ours sends, as a plain grpc-js caller would add it. */
  const metadata = () => {
    const md = new grpc.Metadata();
    if (!args['bare-metadata']) return md;
    md.set('x-request-id', ctx.requestId);
    md.set('x-edge-actor', ctx.actorId!);
    md.set(PRINCIPAL_KEY, principalValue);
    return md;
  };
  return {
    call: () => new Promise((resolve, reject) =>
      client.getCaCerts({}, metadata(), { deadline: Date.now() + 5000 }, (err, res) => (err ? reject(err) : resolve(res)))),
    enter: (worker) => worker(),
    close: async () => {
      client.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    },
  };
}

interface Rate {
  /** Calls per second (wall clock). */
  perSecond: number;
  /** CPU time of this process (client and server) per call, in microseconds: less disturbed by other processes on the machine. */
  cpuMicros: number;
}

/** `total` calls, `inflight` at a time. */
async function rate(target: Target, total: number, inflight: number): Promise<Rate> {
  let left = total;
  const worker = async () => {
    while (left-- > 0) await target.call();
  };
  const start = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: inflight }, () => target.enter(worker)));
  const used = process.cpuUsage(cpu);
  return { perSecond: total / ((performance.now() - start) / 1000), cpuMicros: (used.user + used.system) / total };
}

const names: readonly ('bare' | 'ours')[] = args.only === 'bare' || args.only === 'ours' ? [args.only] : ['bare', 'ours'];
const targets = { bare: await bare(), ours: await ours() };
// Warm-up: connections made, code optimized.
for (const name of names) await rate(targets[name], 2000, 16);

const none = (): Rate => ({ perSecond: NaN, cpuMicros: NaN });
const best = { bare: { seq: none(), conc: none() }, ours: { seq: none(), conc: none() } };
const better = (a: Rate, b: Rate): Rate => ({
  perSecond: Number.isNaN(a.perSecond) ? b.perSecond : Math.max(a.perSecond, b.perSecond),
  cpuMicros: Number.isNaN(a.cpuMicros) ? b.cpuMicros : Math.min(a.cpuMicros, b.cpuMicros),
});
for (let round = 0; round < ROUNDS; round++) {
  for (const name of names) {
    best[name].seq = better(best[name].seq, await rate(targets[name], SEQUENTIAL, 1));
    best[name].conc = better(best[name].conc, await rate(targets[name], CONCURRENT, INFLIGHT));
    exporter.reset();
  }
}
await Promise.all(Object.values(targets).map((t) => t.close()));

const cell = (n: number, digits: number) => n.toFixed(digits).padStart(8);
const row = (label: string, b: Rate, o: Rate) =>
  `${label.padEnd(26)} ${cell(b.perSecond, 0)} ${cell(o.perSecond, 0)} ${cell(o.perSecond / b.perSecond, 3)}`
  + ` ${cell(b.cpuMicros, 1)} ${cell(o.cpuMicros, 1)} ${cell(b.cpuMicros / o.cpuMicros, 3)}`;
process.stdout.write(`otel=${args.otel}${args['bare-metadata'] ? ', bare with our metadata' : ''}, best of ${ROUNDS} rounds; ratio = ours / bare in calls per second, bare / ours in CPU per call\n`);
process.stdout.write(`${'mode'.padEnd(26)} ${'bare/s'.padStart(8)} ${'ours/s'.padStart(8)} ${'ratio'.padStart(8)} ${'bare µs'.padStart(8)} ${'ours µs'.padStart(8)} ${'ratio'.padStart(8)}\n`);
process.stdout.write(`${row('sequential', best.bare.seq, best.ours.seq)}\n`);
process.stdout.write(`${row(`concurrent (${INFLIGHT} in flight)`, best.bare.conc, best.ours.conc)}\n`);

/**
 * What the gRPC wrappers of @edge/rpc cost per call: one trivial unary method (PkiService's
 * GetCaCerts, answered from memory) served and called on loopback through createRpcServer and
 * createRpcClient, and the same method through bare @grpc/grpc-js, in one process, alternating
 * rounds of sequential calls and of calls with many in flight. Prints calls/s of each and their
 * ratio (ours / bare: 1 means the wrappers cost nothing).
 *
 * `node bench/dist/rpc-overhead.js [--otel off|idle|spans] [--sequential N] [--concurrent M]
 * [--inflight K] [--rounds R] [--only bare|ours]`. `--otel idle` (the default) is what a process runs without an
 * OTLP endpoint: startTelemetry with no span processor (context manager and propagator, no
 * tracer provider); `spans` records every span into memory; `off` never starts telemetry.
 */
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { contracts, type PkiServiceClient, type PkiServiceHandlers } from '@edge/proto';
import { silentLogger } from '@edge/logging';
import { createRpcClient, createRpcServer, runWithContext, stubHandlers, type CallerPrincipal, type RequestContext } from '@edge/rpc';
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

async function ours(): Promise<{ call: Call; close: () => Promise<void> }> {
  const server = createRpcServer('pki', silentLogger(), { tls: null });
  server.add<PkiServiceHandlers>(contracts.pki(), stubHandlers<PkiServiceHandlers>({ GetCaCerts: async () => ANSWER }));
  const port = await server.listen('127.0.0.1:0');
  server.setServing(true);
  const client = createRpcClient(contracts.pki(), `127.0.0.1:${port}`, { deadlineMs: 5000, tls: null });
  const ctx = requestContext();
  return {
    call: () => runWithContext(ctx, () => client.getCaCerts({})),
    close: async () => {
      client.close();
      await server.stop(100);
    },
  };
}

async function bare(): Promise<{ call: Call; close: () => Promise<void> }> {
  const server = new grpc.Server();
  server.addService(contracts.pki().service, {
    GetCaCerts: (_call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => cb(null, ANSWER),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  const Client = contracts.pki();
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as PkiServiceClient;
  return {
    call: () => new Promise((resolve, reject) =>
      client.getCaCerts({}, { deadline: Date.now() + 5000 }, (err, res) => (err ? reject(err) : resolve(res)))),
    close: async () => {
      client.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    },
  };
}

/** Calls per second: `total` calls, `inflight` at a time. */
async function rate(call: Call, total: number, inflight: number): Promise<number> {
  let left = total;
  const worker = async () => {
    while (left-- > 0) await call();
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: inflight }, worker));
  return total / ((performance.now() - start) / 1000);
}

const names: readonly ('bare' | 'ours')[] = args.only === 'bare' || args.only === 'ours' ? [args.only] : ['bare', 'ours'];
const targets = { bare: await bare(), ours: await ours() };
// Warm-up: connections made, code optimized.
for (const name of names) await rate(targets[name].call, 2000, 16);

const best = { bare: { seq: NaN, conc: NaN }, ours: { seq: NaN, conc: NaN } };
for (let round = 0; round < ROUNDS; round++) {
  for (const name of names) {
    best[name].seq = Math.max(best[name].seq || 0, await rate(targets[name].call, SEQUENTIAL, 1));
    best[name].conc = Math.max(best[name].conc || 0, await rate(targets[name].call, CONCURRENT, INFLIGHT));
    exporter.reset();
  }
}
await Promise.all(Object.values(targets).map((t) => t.close()));

const row = (label: string, b: number, o: number) =>
  `${label.padEnd(24)} ${b.toFixed(0).padStart(8)} ${o.toFixed(0).padStart(8)} ${(o / b).toFixed(3).padStart(7)}`;
process.stdout.write(`otel=${args.otel}, best of ${ROUNDS} rounds (calls/s)\n`);
process.stdout.write(`${'mode'.padEnd(24)} ${'bare'.padStart(8)} ${'ours'.padStart(8)} ${'ratio'.padStart(7)}\n`);
process.stdout.write(`${row('sequential', best.bare.seq, best.ours.seq)}\n`);
process.stdout.write(`${row(`concurrent (${INFLIGHT} in flight)`, best.bare.conc, best.ours.conc)}\n`);

/**
 * A local cluster: every service (with EDGE_REPLICAS_<SERVICE> replicas each) and the gateway
 * as separate processes against real Postgres and NATS, the same topology the Helm chart
 * deploys. Replicas of a service listen on consecutive ports; clients balance over them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DEFAULT_GRPC_PORTS, SERVICE_NAMES, type ServiceName } from '@edge/config';

export interface ClusterOptions {
  env: Record<string, string | undefined>;
  /** Replica count per service (default 1). */
  replicas: Partial<Record<ServiceName, number>>;
  /** First gRPC port; service n's replica r listens on base + 10·n + r. */
  basePort?: number;
  /**
   * host:port of the first /metrics endpoint (EDGE_METRICS_ADDR); none when absent. The gateway
   * serves on that port, service n's replica r on port + 1 + 10·n + r.
   */
  metricsAddr?: string;
  onExit?: (name: string, code: number | null) => void;
}

const require = createRequire(import.meta.url);

/** Path of a workspace package's compiled main.js. */
function mainOf(pkg: string): string {
  return join(dirname(require.resolve(pkg)), 'main.js');
}

/** The gRPC target for a service's replicas: one address, or an ipv4: list balanced round-robin. */
export function replicaTarget(ports: number[]): string {
  return ports.length === 1 ? `127.0.0.1:${ports[0]}` : `ipv4:${ports.map((p) => `127.0.0.1:${p}`).join(',')}`;
}

/** Starts the processes; resolves with a stop function once they are spawned. */
export function startCluster(opts: ClusterOptions) {
  const base = opts.basePort ?? DEFAULT_GRPC_PORTS.auth;
  const ports = Object.fromEntries(
    SERVICE_NAMES.map((name, n) => [name, Array.from({ length: Math.max(1, opts.replicas[name] ?? 1) }, (_, r) => base + 10 * n + r)]),
  ) as Record<ServiceName, number[]>;
  const targets = Object.fromEntries(SERVICE_NAMES.map((s) => [`EDGE_${s.toUpperCase()}_GRPC_ADDR`, replicaTarget(ports[s])]));
  const metrics = metricsAddrs(opts.metricsAddr, ports);
  const children: ChildProcess[] = [];
  const run = (name: string, script: string, extra: Record<string, string>) => {
    const env: Record<string, string | undefined> = { ...opts.env, ...targets, ...extra, EDGE_METRICS_ADDR: metrics.get(name) };
    const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code) => opts.onExit?.(name, code));
    children.push(child);
  };
  for (const s of SERVICE_NAMES) {
    ports[s].forEach((port, r) => run(`${s}-${r}`, mainOf(`@edge/${s}`), { EDGE_GRPC_LISTEN_ADDR: `127.0.0.1:${port}` }));
  }
  run('gateway', mainOf('@edge/gateway'), {});
  return {
    ports,
    /** Process name (`gateway`, `<service>-<replica>`) → its /metrics address, when enabled. */
    metrics,
    children,
    async stop(graceMs = 10_000) {
      const exits = children.filter((c) => c.exitCode === null).map((c) => new Promise((r) => c.once('exit', r)));
      for (const c of children) c.kill('SIGTERM');
      const timer = setTimeout(() => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')), graceMs);
      await Promise.all(exits);
      clearTimeout(timer);
    },
  };
}

/** Each process's own /metrics address, derived from the first one (see ClusterOptions.metricsAddr). */
function metricsAddrs(first: string | undefined, ports: Record<ServiceName, number[]>): Map<string, string> {
  const out = new Map<string, string>();
  if (!first) return out;
  const i = first.lastIndexOf(':');
  const [host, base] = [first.slice(0, i), Number(first.slice(i + 1))];
  out.set('gateway', `${host}:${base}`);
  SERVICE_NAMES.forEach((s, n) => ports[s].forEach((_, r) => out.set(`${s}-${r}`, `${host}:${base + 1 + 10 * n + r}`)));
  return out;
}

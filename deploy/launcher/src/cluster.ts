/**
 * A local cluster: every service (with EDGE_REPLICAS_<SERVICE> replicas each) and the gateway
 * as separate processes against real Postgres and NATS, the same topology the Helm chart
 * deploys. Replicas of a service listen on consecutive ports; clients balance over them. A
 * process that dies is started again (supervisor.ts), as Kubernetes restarts a pod.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DEFAULT_GRPC_PORTS, SERVICE_NAMES, type ServiceName } from '@edge/config';
import type { Logger } from '@edge/logging';
import { createSupervisor, type Backoff } from './supervisor.js';

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
  log: Logger;
  /** Restart timing of processes that exit (default supervisor.ts DEFAULT_BACKOFF). */
  backoff?: Backoff;
  onExit?: (name: string, code: number | null, signal: NodeJS.Signals | null) => void;
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

/** The gRPC ports of each service's replicas: service n's replica r on base + 10·n + r. */
export function clusterPorts(replicas: Partial<Record<ServiceName, number>>, base: number = DEFAULT_GRPC_PORTS.auth): Record<ServiceName, number[]> {
  return Object.fromEntries(
    SERVICE_NAMES.map((name, n) => [name, Array.from({ length: Math.max(1, replicas[name] ?? 1) }, (_, r) => base + 10 * n + r)]),
  ) as Record<ServiceName, number[]>;
}

/** Starts the processes under supervision; returns once they are spawned (not yet ready: see ready.ts). */
export function startCluster(opts: ClusterOptions) {
  const ports = clusterPorts(opts.replicas, opts.basePort);
  const targets = Object.fromEntries(SERVICE_NAMES.map((s) => [`EDGE_${s.toUpperCase()}_GRPC_ADDR`, replicaTarget(ports[s])]));
  const metrics = metricsAddrs(opts.metricsAddr, ports);
  const supervisor = createSupervisor({ log: opts.log, backoff: opts.backoff, onExit: opts.onExit });
  const run = (name: string, script: string, extra: Record<string, string>) => {
    supervisor.run(name, script, { ...opts.env, ...targets, ...extra, EDGE_METRICS_ADDR: metrics.get(name) });
  };
  for (const s of SERVICE_NAMES) {
    ports[s].forEach((port, r) => run(`${s}-${r}`, mainOf(`@edge/${s}`), { EDGE_GRPC_LISTEN_ADDR: `127.0.0.1:${port}` }));
  }
  run('gateway', mainOf('@edge/gateway'), {});
  return {
    ports,
    /** Process name (`gateway`, `<service>-<replica>`) → its /metrics address, when enabled. */
    metrics,
    /** The supervised processes (`gateway`, `<service>-<replica>`). */
    processes: () => supervisor.processes(),
    /** Stops every process (SIGTERM, SIGKILL after `graceMs`); nothing is restarted. */
    stop: (graceMs = 10_000) => supervisor.stop(graceMs),
  };
}

/** Each process's own /metrics address, derived from the first one (see ClusterOptions.metricsAddr). */
export function metricsAddrs(first: string | undefined, ports: Record<ServiceName, number[]>): Map<string, string> {
  const out = new Map<string, string>();
  if (!first) return out;
  const i = first.lastIndexOf(':');
  const [host, base] = [first.slice(0, i), Number(first.slice(i + 1))];
  out.set('gateway', `${host}:${base}`);
  SERVICE_NAMES.forEach((s, n) => ports[s].forEach((_, r) => out.set(`${s}-${r}`, `${host}:${base + 1 + 10 * n + r}`)));
  return out;
}

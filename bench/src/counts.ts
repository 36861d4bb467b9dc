/**
 * What a scenario costs inside the controller, read from every process's /metrics before and
 * after a counted run of it: gRPC calls made between services, SQL statements sent, HTTP
 * requests served. The per-request figures are the totals over all processes divided by the
 * requests the gateway served, so a change that makes a request chattier shows as a number.
 *
 * The counted run is a fixed number of requests right after the timed one (warm, same
 * concurrency), each answered before the run ends: a timed run abandons the requests open at
 * its end, whose calls the controller still makes but whose answers it never counts.
 */
import { SERVICE_NAMES, type ServiceName } from '@edge/config';
import { clusterPorts, metricsAddrs } from '@edge/launcher';

/** Counter totals summed over the controller's processes, with the breakdowns kept. */
export interface Counts {
  /** gRPC calls made, by `service/method` (health checks left out). */
  grpcCalls: Record<string, number>;
  /** SQL statements sent, by operation (`select`, `begin`, …). */
  sqlStatements: Record<string, number>;
  /** HTTP requests the gateway answered. */
  httpRequests: number;
}

/** Per-request figures of one scenario. */
export interface PerRequest {
  grpcCallsPerRequest: number;
  sqlStatementsPerRequest: number;
  /** gRPC calls per request by `service/method`. */
  grpcCallsByMethod: Record<string, number>;
  /** SQL statements per request by operation. */
  sqlStatementsByOperation: Record<string, number>;
}

/** The /metrics addresses of the controller's processes: one in standalone mode, one per process in a cluster. */
export function metricsEndpoints(mode: 'cluster' | 'standalone', first: string, env: Record<string, string | undefined>): string[] {
  if (mode === 'standalone') return [first];
  // As the launcher reads them (deploy/launcher/src/main.ts).
  const replicas = Object.fromEntries(SERVICE_NAMES.map((s) => [s, Number(env[`EDGE_REPLICAS_${s.toUpperCase()}`] ?? 1)])) as Record<ServiceName, number>;
  return [...metricsAddrs(first, clusterPorts(replicas)).values()];
}

const SAMPLE = /^(edge_grpc_client_calls_total|edge_db_statements_total|edge_http_server_request_duration_seconds_count)\{([^}]*)\} (\S+)$/;

/** Adds the counters of one exposition text to `into`. */
export function addCounts(into: Counts, text: string): Counts {
  for (const line of text.split('\n')) {
    const m = SAMPLE.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    const value = Number(m[3]);
    if (m[1] === 'edge_http_server_request_duration_seconds_count') {
      into.httpRequests += value;
    } else if (m[1] === 'edge_db_statements_total') {
      into.sqlStatements[labels.operation!] = (into.sqlStatements[labels.operation!] ?? 0) + value;
    } else if (labels.grpc_service !== 'grpc.health.v1.Health') {
      const key = `${labels.grpc_service?.replace(/^edge\.|\.v\d+\.\w+$/g, '')}/${labels.grpc_method}`;
      into.grpcCalls[key] = (into.grpcCalls[key] ?? 0) + value;
    }
  }
  return into;
}

/** Scrapes every endpoint and sums what they count; an endpoint that does not answer fails the run. */
export async function scrapeCounts(endpoints: readonly string[]): Promise<Counts> {
  const counts: Counts = { grpcCalls: {}, sqlStatements: {}, httpRequests: 0 };
  for (const addr of endpoints) {
    const res = await fetch(`http://${addr}/metrics`);
    if (!res.ok) throw new Error(`metrics of ${addr}: HTTP ${res.status}`);
    addCounts(counts, await res.text());
  }
  return counts;
}

const grpcTotal = (c: Counts) => sum(c.grpcCalls);

/**
 * Counts once the controller is idle: no request answered and no call made between two scrapes
 * (requests a load run abandoned are still being served until then). Gives up waiting after
 * `timeoutMs` and returns the last scrape.
 */
export async function settledCounts(endpoints: readonly string[], timeoutMs = 15_000): Promise<Counts> {
  const end = Date.now() + timeoutMs;
  let last = await scrapeCounts(endpoints);
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    const now = await scrapeCounts(endpoints);
    if ((now.httpRequests === last.httpRequests && grpcTotal(now) === grpcTotal(last)) || Date.now() > end) return now;
    last = now;
  }
}

/** Runs `load` between two settled scrapes; the per-request figures of what it made the controller do. */
export async function countPerRequest(endpoints: readonly string[], load: () => Promise<{ requests: number }>): Promise<PerRequest> {
  const before = await settledCounts(endpoints);
  const { requests } = await load();
  return perRequest(before, await settledCounts(endpoints), requests);
}

const round = (n: number) => Math.round(n * 100) / 100;
const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

/** The change from `before` to `after`, per request the gateway served (or `fallback` when it counted none). */
export function perRequest(before: Counts, after: Counts, fallback: number): PerRequest {
  const requests = after.httpRequests - before.httpRequests || fallback;
  const per = (a: Record<string, number>, b: Record<string, number>) => Object.fromEntries(
    Object.keys(a).map((k) => [k, requests > 0 ? round(Math.max(0, a[k]! - (b[k] ?? 0)) / requests) : 0] as const).filter(([, v]) => v > 0),
  );
  const grpcCallsByMethod = per(after.grpcCalls, before.grpcCalls);
  const sqlStatementsByOperation = per(after.sqlStatements, before.sqlStatements);
  const total = (a: Record<string, number>, b: Record<string, number>) => (requests > 0 ? round(Math.max(0, sum(a) - sum(b)) / requests) : 0);
  return {
    grpcCallsPerRequest: total(after.grpcCalls, before.grpcCalls),
    sqlStatementsPerRequest: total(after.sqlStatements, before.sqlStatements),
    grpcCallsByMethod,
    sqlStatementsByOperation,
  };
}

/**
 * Reading metrics in tests: scrape a Prometheus endpoint and sum the samples of one series whose
 * labels include the given ones, or count the gRPC calls of this process.
 */
import { processMetrics } from '@edge/metrics';

/** Scrapes `http://<host:port>/metrics`; throws unless it answers 200. */
export async function scrape(addr: string): Promise<string> {
  const res = await fetch(`http://${addr}/metrics`);
  if (res.status !== 200) throw new Error(`GET http://${addr}/metrics: ${res.status}`);
  return res.text();
}

/** Sum of the samples named `name` whose labels include `labels` (0 when none). */
export function sampleSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

/**
 * gRPC calls this process (a standalone test controller) has made so far, by method name, for
 * each method asked about.
 */
export async function grpcCallsOf(...methods: string[]): Promise<Record<string, number>> {
  const metric = await processMetrics().registry.getSingleMetric('edge_grpc_client_calls_total')!.get();
  return Object.fromEntries(methods.map((m) => [m, metric.values.filter((v) => v.labels.grpc_method === m).reduce((n, v) => n + v.value, 0)]));
}

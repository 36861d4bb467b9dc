/**
 * One load run: autocannon against a base URL for a fixed time (or a fixed number of requests)
 * and concurrency, each request built fresh (random identity, service, filter) by `next`.
 */
import autocannon from 'autocannon';

export interface Request {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Connection errors, timeouts included. */
  errors: number;
  /** Responses with a status outside 2xx. */
  non2xx: number;
  statusCodes: Record<string, number>;
}

/**
 * Runs for `seconds` (requests still open then are abandoned), or until `amount` requests are
 * answered (none is abandoned: what the controller did for them is theirs alone).
 */
export async function runLoad(baseUrl: string, next: () => Request, opts: { connections: number } & ({ seconds: number } | { amount: number })): Promise<LoadResult> {
  const instance = autocannon({
    url: baseUrl,
    connections: opts.connections,
    ...('amount' in opts ? { amount: opts.amount } : { duration: opts.seconds }),
    timeout: 30,
    requests: [{
      setupRequest: (req) => {
        const r = next();
        const body = r.body === undefined ? undefined : JSON.stringify(r.body);
        return { ...req, method: r.method, path: r.path, body, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...r.headers } };
      },
    }],
  });
  const result = await instance;
  const codes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([k, v]) => [k, v.count ?? 0]));
  return {
    requests: result.requests.total,
    requestsPerSecond: Math.round((result.requests.total / result.duration) * 10) / 10,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    statusCodes: codes,
  };
}

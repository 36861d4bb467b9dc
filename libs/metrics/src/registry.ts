/**
 * The process's metrics: one Prometheus registry per process, so a standalone controller (every
 * service in one process) and a single service process expose the same series, and process
 * metrics (CPU, memory, event loop, GC) are collected once.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { buildInfo } from './build-info.js';

/** Latency buckets in seconds, from a cached lookup to a slow cross-service call. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The route label of a request no route matched (404, 405, or refused before routing). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Methods counted by name; any other (WebDAV's, say) is `other`, so clients cannot grow the label. */
const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Outcome of one authentication attempt, as counted by {@link ProcessMetrics.authentication}. */
export type AuthenticationResult = 'success' | 'failure';

/** The instruments every part of a process records into. */
export interface ProcessMetrics {
  readonly registry: Registry;
  /** One handled unary gRPC call: `code` is the status name (`OK`, `NOT_FOUND`, …). */
  grpcHandled(service: string, method: string, code: string, seconds: number): void;
  /** One unary gRPC call made to another service, once it ended: `code` as for `grpcHandled`. */
  grpcCalled(service: string, method: string, code: string): void;
  /**
   * One SQL statement sent to the database (transaction control included): `operation` is its
   * first keyword, lower case (`select`, `insert`, `begin`, …).
   */
  dbStatement(operation: string): void;
  /**
   * One HTTP request: `route` is the route pattern (`/edge/management/v1/identities/:id`), never
   * the raw URL, or {@link UNMATCHED_ROUTE}; a method outside the HTTP API's is counted as `other`.
   */
  httpRequest(method: string, route: string, statusCode: number, seconds: number): void;
  /** One authentication attempt by `method` (`password`, `cert`, `ext-jwt`). */
  authentication(method: string, result: AuthenticationResult): void;
  /** One request refused by a rate limit; `scope` says which (`address`, `username`, `concurrency`). */
  rateLimited(scope: string): void;
  /** The time an event spent between its publish and the start of its handling. */
  eventLag(subject: string, seconds: number): void;
  /** Events an outbox relay published to the bus. */
  outboxPublished(outbox: string, count: number): void;
  /** A relay round that stopped at a failed publish (the bus or the database unreachable). */
  outboxFailed(outbox: string): void;
  /** Reports the events waiting in an outbox at every scrape (`read` is called then). */
  watchOutbox(outbox: string, read: () => Promise<number>): void;
  /** Reports a connection pool's sizes at every scrape (`read` is called then). */
  watchPool(name: string, read: () => { total: number; idle: number; waiting: number }): void;
}

let current: ProcessMetrics | undefined;

/**
 * The child of `metric` for one set of label values, kept in one map per label: recorded on
 * every request or call, so the labels are not hashed again each time, nor joined into a key
 * (label values are bounded: routes, methods, codes).
 */
function cachedChildren<C>(child: (values: string[]) => C): (...values: string[]) => C {
  type Level = Map<string, Level | C>;
  const root: Level = new Map();
  return (...values) => {
    let level = root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]!) as Level | undefined;
      if (next === undefined) level.set(values[i]!, (next = new Map()));
      level = next;
    }
    let c = level.get(values[last]!) as C | undefined;
    if (c === undefined) level.set(values[last]!, (c = child(values)));
    return c;
  };
}

function create(): ProcessMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const histogram = <L extends string>(name: string, help: string, labelNames: L[]) =>
    new Histogram<L>({ name, help, labelNames, buckets: BUCKETS, registers: [registry] });
  const grpc = histogram('edge_grpc_server_handling_seconds', 'Duration of unary gRPC calls handled, by service, method and status code.', ['grpc_service', 'grpc_method', 'grpc_code']);
  const http = histogram('edge_http_server_request_duration_seconds', 'Duration of HTTP requests served, by method, route pattern and status code.', ['method', 'route', 'status_code']);
  const auth = new Counter({
    name: 'edge_authentications_total',
    help: 'Authentication attempts, by method and result.',
    labelNames: ['method', 'result'],
    registers: [registry],
  });
  const called = new Counter({
    name: 'edge_grpc_client_calls_total',
    help: 'Unary gRPC calls made to other services, by service, method and status code.',
    labelNames: ['grpc_service', 'grpc_method', 'grpc_code'],
    registers: [registry],
  });
  const statements = new Counter({ name: 'edge_db_statements_total', help: 'SQL statements sent to the database, by operation.', labelNames: ['operation'], registers: [registry] });
  const statement = cachedChildren((v) => statements.labels(...v));
  const grpcChild = cachedChildren((v) => grpc.labels(...v));
  const httpChild = cachedChildren((v) => http.labels(...v));
  const calledChild = cachedChildren((v) => called.labels(...v));
  const limited = new Counter({ name: 'edge_rate_limit_rejections_total', help: 'Requests refused by a rate limit, by scope.', labelNames: ['scope'], registers: [registry] });
  const build = buildInfo();
  new Gauge({
    name: 'edge_build_info', help: 'Always 1; the labels say which build this process runs.',
    labelNames: ['version', 'revision', 'build_date', 'node_version'], registers: [registry],
  }).set({ version: build.version, revision: build.revision, build_date: build.buildDate, node_version: build.nodeVersion }, 1);
  const lag = histogram('edge_event_lag_seconds', 'Time from an event\'s publish to the start of its handling, by subject.', ['subject']);
  const published = new Counter({ name: 'edge_outbox_published_total', help: 'Events relayed from an outbox to the bus, by outbox.', labelNames: ['outbox'], registers: [registry] });
  const failed = new Counter({ name: 'edge_outbox_publish_failures_total', help: 'Outbox relay rounds stopped by a failed publish, by outbox.', labelNames: ['outbox'], registers: [registry] });
  const outboxes = new Map<string, () => Promise<number>>();
  new Gauge({
    name: 'edge_outbox_pending', help: 'Events recorded in an outbox and not yet acknowledged by the bus, by outbox.', labelNames: ['outbox'], registers: [registry],
    async collect() {
      this.reset();
      for (const [outbox, read] of outboxes) {
        // An unreachable database leaves the series out rather than failing the scrape.
        const n = await read().catch(() => undefined);
        if (n !== undefined) this.set({ outbox }, n);
      }
    },
  });
  const pools = new Map<string, () => { total: number; idle: number; waiting: number }>();
  new Gauge({
    name: 'edge_db_pool_connections', help: 'Database pool connections, by pool and state (total, idle, waiting clients).', labelNames: ['pool', 'state'], registers: [registry],
    collect() {
      this.reset();
      for (const [pool, read] of pools) {
        const r = read();
        this.set({ pool, state: 'total' }, r.total);
        this.set({ pool, state: 'idle' }, r.idle);
        this.set({ pool, state: 'waiting' }, r.waiting);
      }
    },
  });
  return {
    registry,
    rateLimited: (scope) => limited.inc({ scope }),
    eventLag: (subject, seconds) => lag.observe({ subject }, seconds),
    watchPool: (name, read) => void pools.set(name, read),
    outboxPublished: (outbox, count) => published.inc({ outbox }, count),
    outboxFailed: (outbox) => failed.inc({ outbox }),
    watchOutbox: (outbox, read) => void outboxes.set(outbox, read),
    grpcCalled: (service, method, code) => calledChild(service, method, code).inc(),
    dbStatement: (operation) => statement(operation).inc(),
    grpcHandled: (service, method, code, seconds) => grpcChild(service, method, code).observe(seconds),
    httpRequest: (method, route, statusCode, seconds) =>
      httpChild(HTTP_METHODS.has(method) ? method : 'other', route, String(statusCode)).observe(seconds),
    authentication: (method, result) => auth.inc({ method, result }),
  };
}

/**
 * The metrics of this process, created on first use (not at import, so importing the library
 * registers nothing). Every caller in the process gets the same instruments.
 */
export function processMetrics(): ProcessMetrics {
  return (current ??= create());
}

/**
 * Counts an authentication attempt. Exactly one place per attempt may call it, or a standalone
 * process (gateway and auth service in one registry) counts twice: today the gateway does, for
 * every answer of the authenticate routes. Should the auth service count instead (to see why
 * an attempt failed), the gateway's call moves there.
 */
export function recordAuthentication(method: string, result: AuthenticationResult): void {
  processMetrics().authentication(method, result);
}

/** Seconds elapsed since `start` (a `process.hrtime.bigint()` reading). */
export function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

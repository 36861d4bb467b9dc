import * as grpc from '@grpc/grpc-js';
import { context, trace, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { contracts } from '@edge/proto';
import { isZitiError } from '@edge/errors';
import type { Logger } from '@edge/logging';
import { processMetrics, secondsSince } from '@edge/metrics';
import { runWithContext, type RequestContext } from './context.js';
import { answeredHandlerError, toServiceError } from './errors.js';
import { bindAddress, recordBound } from './local.js';
import { incomingRequestContext, incomingTraceContext } from './metadata.js';
import { hasVerifiedPeer, processMeshCredentials, type MeshCredentials } from './mesh-credentials.js';
import { recordingSpans } from './tracing.js';

type RemoveIndex<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

/** Async implementations of a generated `XServiceHandlers` interface's unary methods. */
export type AsyncHandlers<H> = {
  [K in keyof RemoveIndex<H>]: H[K] extends grpc.handleUnaryCall<infer Req, infer Res> ? (req: Req, ctx: RequestContext) => Promise<Res> : never;
};

/** A gRPC server with the standard health service, error mapping and context propagation. */
export interface RpcServer {
  add<H>(service: { service: grpc.ServiceDefinition }, handlers: AsyncHandlers<H>): void;
  /** Binds `addr` (host:port; port 0 picks one) and resolves the bound port. */
  listen(addr: string): Promise<number>;
  setServing(serving: boolean): void;
  /** Stops accepting calls, waits up to `graceMs` for running ones, then forces. */
  stop(graceMs?: number): Promise<void>;
}

const tracer = trace.getTracer('@edge/rpc');

/**
 * How long a client connection lives before the server asks the client to reconnect. Clients
 * resolve a `dns:///` target again when a connection ends, so replicas added since (a scale-up
 * behind a headless Service) start receiving calls within this time instead of never.
 */
export const DEFAULT_MAX_CONNECTION_AGE_MS = 5 * 60_000;

/** Options of {@link createRpcServer}. */
export interface RpcServerOptions {
  /** See {@link DEFAULT_MAX_CONNECTION_AGE_MS}. */
  maxConnectionAgeMs?: number;
  /**
   * Mutual TLS: the server's certificate, and the CA client certificates must chain to. Default:
   * the process's ({@link useMeshCredentials}); null: plaintext.
   */
  tls?: MeshCredentials | null;
  /**
   * Methods (as in the proto, e.g. `IssueServiceCertificate`) callable without a client
   * certificate under mutual TLS. When there are any, the TLS handshake asks for a client
   * certificate without requiring one, and every other method refuses a caller that presented
   * none (UNAUTHENTICATED); the health check stays open too. None: the handshake requires one.
   */
  openMethods?: readonly string[];
}

/** The answer to a call without a verified client certificate on a mutual-TLS server. */
const NO_CLIENT_CERTIFICATE: Partial<grpc.ServiceError> = {
  code: grpc.status.UNAUTHENTICATED,
  details: 'a client certificate issued by the controller\'s service CA is required',
};

/** Creates a server for one service (`name` appears in logs, spans and health). */
export function createRpcServer(name: string, log: Logger, options: RpcServerOptions = {}): RpcServer {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': 8 * 1024 * 1024,
    // Clients ping idle connections every 10 s (client.ts). grpc-js accepts pings without a
    // minimum interval; these say so to gRPC servers that enforce one (C-core answers pings it
    // deems too frequent with GOAWAY too_many_pings), so the policy is explicit here.
    'grpc.keepalive_permit_without_calls': 1,
    'grpc.http2.min_ping_interval_without_data_ms': 5_000,
    'grpc.max_connection_age_ms': options.maxConnectionAgeMs ?? DEFAULT_MAX_CONNECTION_AGE_MS,
    // Calls running when the age is reached get this long to finish on the old connection.
    'grpc.max_connection_age_grace_ms': 30_000,
    // No channelz service runs; its statistics would only cost every call (as in client.ts).
    'grpc.enable_channelz': 0,
  });
  let serving = false;
  const tls = options.tls === undefined ? processMeshCredentials() : options.tls ?? undefined;
  const open = new Set(options.openMethods ?? []);
  server.addService(contracts.health().service, {
    Check: (_call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) =>
      cb(null, { status: serving ? 'SERVING' : 'NOT_SERVING' }),
  });

  const metrics = processMetrics();
  // `path` is the full method path (/edge.auth.v1.AuthService/Authenticate): its service part
  // labels the metrics, so one process hosting several services keeps them apart.
  const wrap = (method: string, path: string, impl: (req: unknown, ctx: RequestContext) => Promise<unknown>) => {
    const grpcService = path.split('/')[1] ?? name;
    const spanName = `${name}/${method}`;
    return (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      if (tls && !open.has(method) && !hasVerifiedPeer(call)) {
        cb(NO_CLIENT_CERTIFICATE as grpc.ServiceError, null);
        return;
      }
      const started = process.hrtime.bigint();
      const ctx = incomingRequestContext(call.metadata);
      ctx.deadline = deadlineOf(call);
      const active = context.active();
      const otelCtx = incomingTraceContext(call.metadata, active);
      const handle = () => answer(ctx, impl, call.request);
      let span: Span | undefined;
      let answered: Promise<unknown>;
      if (recordingSpans()) {
        span = tracer.startSpan(spanName, { kind: SpanKind.SERVER, attributes: { 'rpc.system': 'grpc', 'rpc.service': name, 'rpc.method': method, 'edge.request_id': ctx.requestId } }, otelCtx);
        answered = context.with(trace.setSpan(otelCtx, span), handle);
      } else {
        // No span to record: the handler's calls only pass on the trace context this one carried.
        answered = otelCtx === active ? handle() : context.with(otelCtx, handle);
      }
      answered.then(
        (res) => {
          // Answered: the deadline no longer binds work the handler left running (as handleWithContext).
          ctx.deadline = undefined;
          span?.end();
          metrics.grpcHandled(grpcService, method, 'OK', secondsSince(started));
          cb(null, res);
        },
        (thrown: unknown) => {
          ctx.deadline = undefined;
          const err = answeredHandlerError(thrown, name, log, { method, requestId: ctx.requestId });
          if (!isZitiError(err)) span?.setStatus({ code: SpanStatusCode.ERROR });
          span?.end();
          const serviceError = toServiceError(err);
          metrics.grpcHandled(grpcService, method, grpc.status[serviceError.code ?? grpc.status.UNKNOWN] ?? 'UNKNOWN', secondsSince(started));
          cb(serviceError as grpc.ServiceError, null);
        },
      );
    };
  };

  return {
    add(service, handlers) {
      const impl: grpc.UntypedServiceImplementation = {};
      for (const method of Object.keys(service.service)) {
        const h = (handlers as Record<string, (req: unknown, ctx: RequestContext) => Promise<unknown>>)[method];
        if (!h) throw new Error(`${name}: no handler for ${method}`);
        impl[method] = wrap(method, (service.service[method] as grpc.MethodDefinition<unknown, unknown>).path, h);
      }
      server.addService(service.service, impl);
    },
    async listen(addr) {
      const bind = (a: string) => new Promise<number>((resolve, reject) => {
        const credentials = tls ? tls.serverCredentials(open.size === 0) : grpc.ServerCredentials.createInsecure();
        server.bindAsync(a, credentials, (err, port) => (err ? reject(listenError(err, a)) : resolve(port)));
      });
      const wanted = bindAddress(addr);
      // A local target's earlier port may have been taken meanwhile: then any port will do.
      const port = await bind(wanted).catch((err: unknown) => (wanted !== addr && !wanted.endsWith(':0') ? bind('127.0.0.1:0') : Promise.reject(err)));
      recordBound(addr, port);
      return port;
    },
    setServing(s) {
      serving = s;
    },
    stop(graceMs = 5000) {
      serving = false;
      return new Promise((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
    },
  };
}

/**
 * What `impl` answers `request` with, run with `ctx` as the request context; a synchronous throw
 * becomes a rejection.
 */
function answer(ctx: RequestContext, impl: (req: unknown, ctx: RequestContext) => Promise<unknown>, request: unknown): Promise<unknown> {
  try {
    return Promise.resolve(runWithContext(ctx, impl, request, ctx));
  } catch (err) {
    return Promise.reject(err);
  }
}

/** The incoming call's deadline in epoch ms, or undefined when the caller set none. */
function deadlineOf(call: grpc.ServerUnaryCall<unknown, unknown>): number | undefined {
  const d = call.getDeadline();
  const ms = d instanceof Date ? d.getTime() : d;
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * grpc-js reports a failed bind as text; this error carries the socket error's code and the
 * address, as Node's listen errors do, so start-up can name the setting at fault.
 */
function listenError(err: Error, address: string): Error {
  const code = /\b(E[A-Z]{4,})\b/.exec(err.message)?.[1];
  return Object.assign(new Error(`cannot listen on ${address}: ${err.message}`), { code, address });
}

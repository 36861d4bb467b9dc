import * as grpc from '@grpc/grpc-js';
import { context, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { contracts } from '@edge/proto';
import { isZitiError } from '@edge/errors';
import type { Logger } from '@edge/logging';
import { processMetrics, secondsSince } from '@edge/metrics';
import { runWithContext, type RequestContext } from './context.js';
import { toServiceError } from './errors.js';
import { incomingContext } from './metadata.js';

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
}

/** Creates a server for one service (`name` appears in logs, spans and health). */
export function createRpcServer(name: string, log: Logger, options: RpcServerOptions = {}): RpcServer {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': 8 * 1024 * 1024,
    'grpc.max_connection_age_ms': options.maxConnectionAgeMs ?? DEFAULT_MAX_CONNECTION_AGE_MS,
    // Calls running when the age is reached get this long to finish on the old connection.
    'grpc.max_connection_age_grace_ms': 30_000,
  });
  let serving = false;
  server.addService(contracts.health().service, {
    Check: (_call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) =>
      cb(null, { status: serving ? 'SERVING' : 'NOT_SERVING' }),
  });

  const metrics = processMetrics();
  // `path` is the full method path (/edge.auth.v1.AuthService/Authenticate): its service part
  // labels the metrics, so one process hosting several services keeps them apart.
  const wrap = (method: string, path: string, impl: (req: unknown, ctx: RequestContext) => Promise<unknown>) =>
    (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      const started = process.hrtime.bigint();
      const grpcService = path.split('/')[1] ?? name;
      const { ctx, otelCtx } = incomingContext(call.metadata);
      const span = tracer.startSpan(`${name}/${method}`, { kind: SpanKind.SERVER, attributes: { 'rpc.system': 'grpc', 'rpc.service': name, 'rpc.method': method, 'edge.request_id': ctx.requestId } }, otelCtx);
      context.with(trace.setSpan(otelCtx, span), () =>
        runWithContext(ctx, () => impl(call.request, ctx)),
      ).then(
        (res) => {
          span.end();
          metrics.grpcHandled(grpcService, method, 'OK', secondsSince(started));
          cb(null, res);
        },
        (err: unknown) => {
          if (!isZitiError(err)) {
            log.error({ err, method, requestId: ctx.requestId }, 'unhandled error in gRPC handler');
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end();
          const serviceError = toServiceError(err);
          metrics.grpcHandled(grpcService, method, grpc.status[serviceError.code ?? grpc.status.UNKNOWN] ?? 'UNKNOWN', secondsSince(started));
          cb(serviceError as grpc.ServiceError, null);
        },
      );
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
    listen(addr) {
      return new Promise((resolve, reject) => {
        server.bindAsync(addr, grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port)));
      });
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

import * as grpc from '@grpc/grpc-js';
import { context, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { currentContext } from './context.js';
import { fromServiceError } from './errors.js';
import { outgoingMetadata } from './metadata.js';

type UnaryOf<F> = F extends (argument: infer A, callback: grpc.requestCallback<infer R>) => grpc.ClientUnaryCall ? (req: A, options?: CallOptions) => Promise<R> : never;

/** A promise-returning client: one method per RPC, named as in the generated client (lowerCamel). */
export type RpcClient<C> = {
  [K in Exclude<keyof C, keyof grpc.Client> as K extends string ? (K extends Uncapitalize<K> ? K : never) : never]: UnaryOf<C[K]>;
} & { close(): void };

export interface CallOptions {
  /** Overrides the client's default deadline for this call. */
  deadlineMs?: number;
}

type ClientCtor<C> = (new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => C) & { service: grpc.ServiceDefinition };

const tracer = trace.getTracer('@edge/rpc');

/**
 * Creates a client for `target` (host:port or any grpc-js target such as `dns:///svc:50051` or
 * `ipv4:127.0.0.1:1,127.0.0.1:2`), balancing round-robin over every address the target resolves
 * to. Every call carries a deadline, the request id, the actor and the trace context.
 */
export function createRpcClient<C extends grpc.Client>(Ctor: ClientCtor<C>, target: string, defaults: { deadlineMs: number }): RpcClient<C> {
  const client = new Ctor(target, grpc.credentials.createInsecure(), {
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
    'grpc.keepalive_time_ms': 30_000,
    'grpc.max_receive_message_length': 8 * 1024 * 1024,
  });
  const out: Record<string, unknown> = { close: () => client.close() };
  for (const [name, def] of Object.entries(Ctor.service)) {
    const method = (def as { originalName?: string }).originalName ?? name[0]!.toLowerCase() + name.slice(1);
    out[method] = (req: unknown, options: CallOptions = {}) => {
      const span = tracer.startSpan(`${name}`, { kind: SpanKind.CLIENT, attributes: { 'rpc.system': 'grpc', 'rpc.method': name, 'server.address': target } });
      const otelCtx = trace.setSpan(context.active(), span);
      const md = outgoingMetadata(currentContext(), otelCtx);
      const deadline = Date.now() + (options.deadlineMs ?? defaults.deadlineMs);
      return new Promise((resolve, reject) => {
        (client as unknown as Record<string, (...a: unknown[]) => void>)[name]!.call(client, req, md, { deadline }, (err: grpc.ServiceError | null, res: unknown) => {
          if (err) {
            span.setStatus({ code: SpanStatusCode.ERROR, message: err.details });
            span.end();
            reject(fromServiceError(err));
          } else {
            span.end();
            resolve(res);
          }
        });
      });
    };
  }
  return out as RpcClient<C>;
}

/** Resolves when the target answers the standard health check with SERVING, or rejects at the deadline. */
export async function waitForHealthy(healthClient: RpcClient<grpc.Client> & { check(req: { service?: string }, o?: CallOptions): Promise<{ status: string }> }, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const r = await healthClient.check({}, { deadlineMs: 1000 });
      if (r.status === 'SERVING') return;
      last = new Error(`status ${r.status}`);
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`service not healthy after ${timeoutMs} ms: ${String(last)}`);
}

import * as grpc from '@grpc/grpc-js';
import { context, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { unavailable } from '@edge/errors';
import { processMetrics } from '@edge/metrics';
import { currentContext } from './context.js';
import { fromServiceError } from './errors.js';
import { resolveTarget } from './local.js';
import { outgoingMetadata } from './metadata.js';
import { recordingSpans } from './tracing.js';
import { meshServerName, processMeshCredentials, type MeshCredentials } from './mesh-credentials.js';

type UnaryOf<F> = F extends (argument: infer A, callback: grpc.requestCallback<infer R>) => grpc.ClientUnaryCall ? (req: A, options?: CallOptions) => Promise<R> : never;

/** A promise-returning client: one method per RPC, named as in the generated client (lowerCamel). */
export type RpcClient<C> = {
  [K in Exclude<keyof C, keyof grpc.Client> as K extends string ? (K extends Uncapitalize<K> ? K : never) : never]: UnaryOf<C[K]>;
} & { close(): void };

/** Options of {@link createRpcClient}. */
export interface RpcClientOptions {
  /** Deadline of every call unless the call says otherwise (CallOptions.deadlineMs). */
  deadlineMs: number;
  /**
   * Mutual TLS: the certificate presented and the CA the server's must chain to. Default: the
   * process's ({@link useMeshCredentials}) at the time the connection is made; null: plaintext.
   */
  tls?: MeshCredentials | null;
  /**
   * Which process the server must prove to be under mutual TLS (its certificate names
   * `<serverName>.grpc.edge.internal`). Default: the service of the contract (`auth` for
   * AuthService); give it for contracts every server offers, such as health.
   */
  serverName?: string;
}

export interface CallOptions {
  /** Overrides the client's default deadline for this call (still bounded by the caller's, see RequestContext.deadline). */
  deadlineMs?: number;
}

type ClientCtor<C> = (new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => C) & { service: grpc.ServiceDefinition };

const tracer = trace.getTracer('@edge/rpc');

/** Metadata options of every call (shared: grpc-js only reads them). */
const WAIT_FOR_READY: grpc.MetadataOptions = { waitForReady: true };

/**
 * How much sooner than its caller's deadline a nested call must end, so that the callee gives
 * up (and answers) while its caller still listens.
 */
export const DEADLINE_MARGIN_MS = 50;

/**
 * Channel options of every client. A service that comes back is used again within about a
 * second: reconnection attempts start 100 ms after a loss and back off to at most 1 s (grpc-js
 * defaults: 1 s growing to 120 s, so a restarted service was ignored for up to half a minute).
 * Keepalive pings, also on idle connections, notice a peer that vanished without closing; the
 * server permits them (server.ts). Channelz (grpc-js's per-channel and per-call statistics,
 * read only by a channelz service, which no process runs) is off: it costs a few closures and
 * clock readings on every call.
 */
export const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.min_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1_000,
  'grpc.keepalive_time_ms': 10_000,
  'grpc.keepalive_timeout_ms': 5_000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.max_receive_message_length': 8 * 1024 * 1024,
  'grpc.enable_channelz': 0,
};

/** `edge.identity.v1.IdentityService` → `identity`: how errors name the service. */
function serviceLabel(def: grpc.ServiceDefinition): string {
  const path = (Object.values(def)[0] as grpc.MethodDefinition<unknown, unknown> | undefined)?.path ?? '';
  return /^\/edge\.([a-z]+)\./.exec(path)?.[1] ?? 'peer';
}

/** The deadline of an outgoing call: its own budget, but never past its caller's (less a margin). */
export function outgoingDeadline(budgetMs: number, callerDeadline: number | undefined, now = Date.now()): number {
  const own = now + budgetMs;
  return callerDeadline === undefined ? own : Math.min(own, callerDeadline - DEADLINE_MARGIN_MS);
}

/**
 * Creates a client for `target` (host:port, any grpc-js target such as `dns:///svc:50051` or
 * `ipv4:127.0.0.1:1,127.0.0.1:2`, or an in-process `local:` target), balancing round-robin over
 * every address the target resolves to. Every call carries a deadline (see
 * {@link outgoingDeadline}), the request id, the actor and the trace context. A call made while
 * the service is unreachable waits for it until its deadline (a restart is absorbed), then fails
 * as UNAVAILABLE.
 */
export function createRpcClient<C extends grpc.Client>(Ctor: ClientCtor<C>, target: string, defaults: RpcClientOptions): RpcClient<C> {
  const label = serviceLabel(Ctor.service);
  const metrics = processMetrics();
  let channel: { address: string; tls: MeshCredentials | undefined; client: C } | undefined;
  // A local target is bound when its service starts, maybe after this client is made; the
  // process's credentials are installed at start-up, maybe after too.
  const clientFor = (address: string): C => {
    const tls = defaults.tls === undefined ? processMeshCredentials() : defaults.tls ?? undefined;
    if (channel?.address !== address || channel.tls !== tls) {
      channel?.client.close();
      const client = tls
        ? new Ctor(address, tls.channelCredentials(), { ...CHANNEL_OPTIONS, 'grpc.ssl_target_name_override': meshServerName(defaults.serverName ?? label) })
        : new Ctor(address, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
      channel = { address, tls, client };
    }
    return channel.client;
  };
  const out: Record<string, unknown> = { close: () => channel?.client.close() };
  for (const [name, def] of Object.entries(Ctor.service)) {
    // `path` is /edge.auth.v1.AuthService/Authenticate: the service part labels the calls counted.
    const grpcService = (def as grpc.MethodDefinition<unknown, unknown>).path.split('/')[1] ?? label;
    const method = (def as { originalName?: string }).originalName ?? name[0]!.toLowerCase() + name.slice(1);
    out[method] = (req: unknown, options?: CallOptions) => {
      const ctx = currentContext();
      const deadline = outgoingDeadline(options?.deadlineMs ?? defaults.deadlineMs, ctx.deadline);
      const address = resolveTarget(target);
      // The caller has given up already, or the service has never been started: ask nothing.
      if (deadline <= Date.now()) return Promise.reject(unavailable(`the ${label} service`, new Error(`no time left for ${name} before the caller's deadline`)));
      if (address === undefined) return Promise.reject(unavailable(`the ${label} service`, new Error(`${target} is not bound`)));
      const client = clientFor(address);
      // Without a tracer provider a span would only stand in for its parent: the active trace
      // context is passed on as it is.
      const span = recordingSpans() ? tracer.startSpan(`${name}`, { kind: SpanKind.CLIENT, attributes: { 'rpc.system': 'grpc', 'rpc.method': name, 'server.address': address } }) : undefined;
      const md = outgoingMetadata(ctx, span ? trace.setSpan(context.active(), span) : context.active());
      // Queued while no connection is ready (a restart, a reconnect), until the deadline.
      md.setOptions(WAIT_FOR_READY);
      return new Promise((resolve, reject) => {
        (client as unknown as Record<string, (...a: unknown[]) => void>)[name]!.call(client, req, md, { deadline }, (err: grpc.ServiceError | null, res: unknown) => {
          metrics.grpcCalled(grpcService, name, err ? grpc.status[err.code] ?? 'UNKNOWN' : 'OK');
          if (err) {
            span?.setStatus({ code: SpanStatusCode.ERROR, message: err.details });
            span?.end();
            reject(fromServiceError(err, label));
          } else {
            span?.end();
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

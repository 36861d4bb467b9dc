/**
 * OpenTelemetry for one process: the global tracer provider, the AsyncLocalStorage context
 * manager and the W3C trace-context propagator that @edge/rpc and @edge/bus create spans and
 * carry context through; OTLP/HTTP export when an endpoint is configured.
 */
import { diag } from '@opentelemetry/api';
import { NodeSDK, core } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';

export type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

export interface TelemetryOptions {
  serviceName: string;
  /** `service.namespace` of the resource (EDGE_OTEL_SERVICE_NAMESPACE). */
  namespace?: string;
  /** OTLP/HTTP base endpoint (EDGE_OTEL_EXPORTER_OTLP_ENDPOINT), e.g. `http://collector:4318`; no export when unset. */
  otlpEndpoint?: string;
  /** Extra span processors, e.g. a SimpleSpanProcessor over an in-memory exporter in tests. */
  spanProcessors?: SpanProcessor[];
}

export interface Telemetry {
  /** Flushes pending spans and stops the SDK; later calls resolve at once. */
  shutdown(): Promise<void>;
}

// Kept on globalThis so that a second copy of this module in the process still sees the first start.
const STARTED = Symbol.for('@edge/telemetry.started');
type Global = typeof globalThis & { [STARTED]?: Telemetry };

/** `http://host:4318` → `http://host:4318/v1/traces`; a URL already naming the traces path is kept. */
export function tracesUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, '');
  return base.endsWith('/v1/traces') ? base : `${base}/v1/traces`;
}

/**
 * Starts the OpenTelemetry SDK for this process: W3C trace-context propagation always; OTLP/HTTP
 * export of spans when `otlpEndpoint` is set; extra processors as given. Registers the http, grpc
 * and pg instrumentations when spans are exported or processed (best effort: under ESM, modules
 * loaded before this call are not patched). Idempotent per process: later calls return the first handle.
 */
export function startTelemetry(opts: TelemetryOptions): Telemetry {
  const g = globalThis as Global;
  const existing = g[STARTED];
  if (existing) return existing;

  const spanProcessors: SpanProcessor[] = [...(opts.spanProcessors ?? [])];
  if (opts.otlpEndpoint) spanProcessors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(opts.otlpEndpoint) })));

  const sdk = new NodeSDK({
    serviceName: opts.serviceName,
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: opts.serviceName,
      ...(opts.namespace ? { 'service.namespace': opts.namespace } : {}),
    }),
    textMapPropagator: new core.W3CTraceContextPropagator(),
    // The context manager defaults to AsyncLocalStorageContextManager.
    spanProcessors,
    // Only traces are ours to configure; without these NodeSDK would start OTLP metric and log exporters from OTEL_* defaults.
    metricReaders: [],
    logRecordProcessors: [],
    // Patching http, grpc-js and pg only pays when spans go somewhere: without a processor every
    // request, call and query would still pay for the wrappers and their placeholder spans. The
    // trace context passes on without them (the gateway's routes, libs/rpc and libs/bus carry it).
    instrumentations: spanProcessors.length > 0 ? [new HttpInstrumentation(), new GrpcInstrumentation(), new PgInstrumentation()] : [],
  });
  sdk.start();

  let stopped: Promise<void> | undefined;
  const handle: Telemetry = {
    shutdown() {
      stopped ??= sdk.shutdown().catch((err: unknown) => diag.error('telemetry shutdown failed', err));
      return stopped;
    },
  };
  g[STARTED] = handle;
  return handle;
}

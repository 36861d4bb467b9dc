import { ProxyTracerProvider, trace } from '@opentelemetry/api';

/** The provider the API answers with while none is registered: its tracers record nothing. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Whether spans are recorded in this process: a tracer provider is registered (startTelemetry
 * registers one only when there is somewhere to send spans). When none is, a span started here
 * would be a non-recording stand-in for its parent, so calls skip making spans and their
 * contexts, and only carry the trace context they were given. Asked per call: the provider may
 * be registered after the clients and servers are made.
 */
export function recordingSpans(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_PROVIDER;
}

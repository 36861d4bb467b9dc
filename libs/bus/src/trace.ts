/** Trace context across the bus; a no-op when no OpenTelemetry SDK is registered. */
import { context, propagation, type Context } from '@opentelemetry/api';

/** Returns `headers` plus the active trace context (e.g. `traceparent`). */
export function withTraceContext(headers: Record<string, string> = {}): Record<string, string> {
  const carrier = { ...headers };
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** Runs `fn` inside the trace context carried by `headers`. */
export function runInTraceContext<R>(headers: Record<string, string>, fn: () => R): R {
  const extracted: Context = propagation.extract(context.active(), headers);
  return context.with(extracted, fn);
}

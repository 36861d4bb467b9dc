/**
 * Trace context across the bus: a producer span around each publish whose context travels in
 * the message headers, and a consumer span around each handler as its child. No-ops when no
 * OpenTelemetry SDK is registered.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import { processMetrics } from '@edge/metrics';

/** Header carrying the publish time (ms since the epoch), from which consumers measure event lag. */
const PUBLISHED_AT = 'edge-published-at';

const tracer = trace.getTracer('edge.bus');
const attributes = (subject: string) => ({ 'messaging.system': 'nats', 'messaging.destination.name': subject });

/** Returns `headers` plus the active trace context (e.g. `traceparent`). */
export function withTraceContext(headers: Record<string, string> = {}): Record<string, string> {
  const carrier = { ...headers };
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** Runs `send` inside a producer span for `subject`, with headers carrying that span's context. */
export function inPublishSpan<R>(subject: string, headers: Record<string, string> | undefined, send: (headers: Record<string, string>) => Promise<R>): Promise<R> {
  return tracer.startActiveSpan(`publish ${subject}`, { kind: SpanKind.PRODUCER, attributes: attributes(subject) }, async (span) => {
    try {
      return await send(withTraceContext({ ...headers, [PUBLISHED_AT]: String(Date.now()) }));
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Runs a handler inside a consumer span for `subject`, child of the trace context in `headers`. */
export function runInTraceContext<R>(headers: Record<string, string>, fn: () => Promise<R>, subject = 'message'): Promise<R> {
  const extracted: Context = propagation.extract(context.active(), headers);
  const publishedAt = Number(headers[PUBLISHED_AT]);
  if (Number.isFinite(publishedAt) && publishedAt > 0) processMetrics().eventLag(subject, Math.max(0, Date.now() - publishedAt) / 1000);
  return context.with(extracted, () =>
    tracer.startActiveSpan(`process ${subject}`, { kind: SpanKind.CONSUMER, attributes: attributes(subject) }, async (span) => {
      try {
        return await fn();
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        throw err;
      } finally {
        span.end();
      }
    }),
  );
}

/**
 * A span per SQL statement, child of whatever span is active when the query runs (a gRPC
 * handler's, usually), so one trace shows the statements a request caused. Built from kysely's
 * log hook, which reports errors as well as successes; the span covers the measured duration.
 * Only the parameterised SQL text is recorded, never the bound values. A statement run outside
 * a recorded span (no exporter configured, a trace not sampled, background work) makes no span:
 * nothing would keep it, and the hook runs on every query.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { LogEvent } from 'kysely';

const tracer = trace.getTracer('edge.db');

/** A kysely `log` function recording each query as a span in `schema`. */
export function traceQueries(schema: string): (event: LogEvent) => void {
  return (event) => {
    if (!trace.getActiveSpan()?.isRecording()) return;
    const end = Date.now();
    const text = event.query.sql;
    const operation = /^\s*(?:with\b[\s\S]*?\)\s*)?(\w+)/i.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
    const span = tracer.startSpan(`${operation} ${schema}`, {
      kind: SpanKind.CLIENT,
      startTime: end - event.queryDurationMillis,
      attributes: { 'db.system.name': 'postgresql', 'db.namespace': schema, 'db.operation.name': operation, 'db.query.text': text },
    });
    if (event.level === 'error') {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (event.error as Error)?.message });
    }
    span.end(end);
  };
}

/**
 * Structured logging (pino) with secrets redacted wherever they appear in a logged object, and
 * the active trace's ids on every line written inside a span, so logs and traces join up.
 */
import { trace } from '@opentelemetry/api';
import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/** Paths never written to a log: passwords, tokens, keys, secrets and session headers. */
export const REDACT_PATHS = [
  'password', '*.password', 'currentPassword', '*.currentPassword',
  'token', '*.token', '*.*.token', 'privateKey', '*.privateKey', 'keyPem', '*.keyPem',
  'secret', '*.secret', 'totpSecret', '*.totpSecret', 'recoveryCodes', '*.recoveryCodes',
  'req.headers["zt-session"]', 'req.headers.authorization', 'req.headers.cookie',
  'headers["zt-session"]', 'headers.authorization',
];

/** `trace_id` and `span_id` of the span active where a line is logged (none outside spans). */
export function traceFields(): Record<string, string> {
  const ctx = trace.getActiveSpan()?.spanContext();
  return ctx && ctx.traceId !== '00000000000000000000000000000000' ? { trace_id: ctx.traceId, span_id: ctx.spanId } : {};
}

/** Creates the process logger. */
export function createLogger(options: { level?: string; name?: string; pretty?: boolean; destination?: pino.DestinationStream } = {}): Logger {
  const opts: LoggerOptions = {
    mixin: traceFields,
    level: options.level ?? 'info',
    name: options.name,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
  };
  return options.destination ? pino(opts, options.destination) : pino(opts);
}

/** A logger that writes nothing (tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

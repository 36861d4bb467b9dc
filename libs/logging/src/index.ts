/**
 * Structured logging (pino) with secrets redacted wherever they appear in a logged object, and
 * the active trace's ids on every line written inside a span, so logs and traces join up.
 */
import { trace } from '@opentelemetry/api';
import { pino, type Logger, type LoggerOptions } from 'pino';
import { build as prettyStream } from 'pino-pretty';

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

/** How log lines are written: human-readable (colours, one event per line) or JSON lines. */
export type LogFormat = 'pretty' | 'json';

/**
 * The format used when none is configured: readable for a person at a terminal, JSON lines for
 * anything that reads stdout (a log collector, a pipe, a file).
 */
export function defaultLogFormat(stream: { isTTY?: boolean } = process.stdout): LogFormat {
  return stream.isTTY ? 'pretty' : 'json';
}

/** Options of {@link createLogger}. */
export interface LoggerSettings {
  level?: string;
  name?: string;
  /** Default: {@link defaultLogFormat} of stdout (or JSON when `destination` is given). */
  format?: LogFormat;
  /** Where lines go (default stdout). */
  destination?: pino.DestinationStream;
}

/**
 * pino runs the redaction of the `*.…` paths over every top-level value of every line (and over
 * the message and a child's bindings), strings and numbers included, where there is nothing to
 * redact: a few microseconds a line. A string, number or boolean is serialized here as the
 * redaction would (JSON.stringify) without walking it; objects are redacted as before.
 */
function skipRedactionOfPlainValues(logger: Logger): Logger {
  const { stringifiersSym, wildcardFirstSym } = pino.symbols;
  const stringifiers = (logger as unknown as Record<symbol, Record<symbol, unknown> | undefined>)[stringifiersSym];
  const redact = stringifiers?.[wildcardFirstSym];
  if (typeof redact !== 'function') return logger;
  stringifiers![wildcardFirstSym] = (value: unknown, ...rest: unknown[]): unknown => {
    const t = typeof value;
    return t === 'string' || t === 'number' || t === 'boolean' ? JSON.stringify(value) : redact(value, ...rest);
  };
  return logger;
}

/** Creates the process logger. */
export function createLogger(options: LoggerSettings = {}): Logger {
  const opts: LoggerOptions = {
    mixin: traceFields,
    level: options.level ?? 'info',
    name: options.name,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
  };
  const format = options.format ?? (options.destination ? 'json' : defaultLogFormat());
  if (format === 'pretty') {
    // Synchronous, in this thread: lines are written before a process that fails at start exits.
    return skipRedactionOfPlainValues(pino(opts, prettyStream({
      destination: options.destination ?? 1,
      sync: true,
      colorize: !options.destination && Boolean(process.stdout.isTTY),
      ignore: 'pid,hostname',
      translateTime: 'SYS:HH:MM:ss.l',
    })));
  }
  return skipRedactionOfPlainValues(options.destination ? pino(opts, options.destination) : pino(opts));
}

/** A logger that writes nothing (tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/** What a per-request logger offers: the level methods, its level, and children of its own. */
export type RequestLogger = Pick<Logger, 'level' | 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' | 'isLevelEnabled' | 'bindings' | 'flush'> & {
  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger;
};

type LogArgs = Parameters<Logger['info']>;

/** See {@link lazyChild}. */
class LazyChild implements RequestLogger {
  #made: Logger | undefined;

  constructor(private readonly parent: Logger, private readonly childBindings: pino.Bindings) {}

  /** The child itself, made on first need. */
  #child(): Logger {
    return (this.#made ??= this.parent.child(this.childBindings));
  }

  get level(): string {
    return (this.#made ?? this.parent).level;
  }

  set level(level: string) {
    this.#child().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (this.#made ?? this.parent).isLevelEnabled(level);
  }

  fatal(...args: LogArgs): void {
    if (this.isLevelEnabled('fatal')) this.#child().fatal(...args);
  }

  error(...args: LogArgs): void {
    if (this.isLevelEnabled('error')) this.#child().error(...args);
  }

  warn(...args: LogArgs): void {
    if (this.isLevelEnabled('warn')) this.#child().warn(...args);
  }

  info(...args: LogArgs): void {
    if (this.isLevelEnabled('info')) this.#child().info(...args);
  }

  debug(...args: LogArgs): void {
    if (this.isLevelEnabled('debug')) this.#child().debug(...args);
  }

  trace(...args: LogArgs): void {
    if (this.isLevelEnabled('trace')) this.#child().trace(...args);
  }

  silent(): void {}

  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger {
    return this.#child().child(bindings, options);
  }

  bindings(): pino.Bindings {
    return this.#child().bindings();
  }

  flush(cb?: (err?: Error) => void): void {
    this.parent.flush(cb);
  }
}

/**
 * A child of `parent` with `bindings` that is made only when it first writes a line (or is
 * asked for something only a child has). Its lines are those the child would have written;
 * until then it costs one small object, where a pino child binds every level method and
 * serializes (and redacts) its bindings: the logger fastify makes for every request, which
 * usually writes nothing below the access line's level.
 */
export function lazyChild(parent: Logger, bindings: pino.Bindings): RequestLogger {
  return new LazyChild(parent, bindings);
}

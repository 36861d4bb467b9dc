/**
 * Structured logging (pino) with secrets redacted wherever they appear in a logged object.
 */
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

/** Creates the process logger. */
export function createLogger(options: { level?: string; name?: string; pretty?: boolean } = {}): Logger {
  const opts: LoggerOptions = {
    level: options.level ?? 'info',
    name: options.name,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
  };
  return pino(opts);
}

/** A logger that writes nothing (tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

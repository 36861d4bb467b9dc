/**
 * Recognising constraint violations from either backend (pg and PGlite share the fields), and
 * failures of the database itself, which are UNAVAILABLE rather than a bug.
 */
import { isConnectionFailure, isZitiError, unavailable } from '@edge/errors';

/** What a constraint violation names. */
export interface ConstraintViolation {
  /** The violated constraint (index) name, when the server reported it. */
  constraint?: string;
}

function violation(err: unknown, code: string): ConstraintViolation | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; constraint?: unknown };
  if (e.code !== code) return undefined;
  return typeof e.constraint === 'string' ? { constraint: e.constraint } : {};
}

/** The violated constraint when `err` is a unique violation (SQLSTATE 23505), else undefined. */
export function isUniqueViolation(err: unknown): ConstraintViolation | undefined {
  return violation(err, '23505');
}

/** The violated constraint when `err` is a foreign-key violation (SQLSTATE 23503), else undefined. */
export function isForeignKeyViolation(err: unknown): ConstraintViolation | undefined {
  return violation(err, '23503');
}

/**
 * SQLSTATEs of a server that cannot serve: class 08 (connection exception), 57P01-57P03 (admin
 * or crash shutdown, cannot connect now), 53300 (too many connections).
 */
function isUnavailableState(code: string): boolean {
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300';
}

/** Messages pg and PGlite give a lost or unobtainable connection (they carry no code). */
const UNAVAILABLE_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'PGlite is closed',
];

/** True when `err` says the database cannot be reached or lost the connection, not that a query was wrong. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null || isZitiError(err)) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && isUnavailableState(code)) return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.startsWith(m))) return true;
  return isConnectionFailure(err);
}

/** `err` as UNAVAILABLE when the database is unavailable (the original kept as its cause), else `err`. */
export function asDatabaseError(err: unknown): unknown {
  return isDatabaseUnavailable(err) ? unavailable('the database', err) : err;
}


/** Recognising constraint violations from either backend (pg and PGlite share the fields). */

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

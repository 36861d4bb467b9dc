/**
 * Domain errors that speak the OpenZiti error catalog.
 *
 * A {@link ZitiError} carries an OpenZiti error code and its HTTP status. It crosses gRPC as a
 * status with the code in metadata (see `@edge/rpc`) and becomes the OpenZiti error envelope at
 * the gateway. Codes and messages follow `controller/apierror/messages.go` in openziti/ziti.
 */

/** The cause of a field-level validation error: which field, why, and the offending value. */
export interface FieldCause {
  field: string;
  reason: string;
  value?: unknown;
}

/** One catalog entry: the OpenZiti code, its HTTP status and default message. */
export interface CatalogEntry {
  code: string;
  status: number;
  message: string;
}

const entry = (code: string, status: number, message: string): CatalogEntry => ({ code, status, message });

/** The error codes clients match on, with their HTTP status (WIRE.md, apierror/messages.go). */
export const Codes = {
  NOT_FOUND: entry('NOT_FOUND', 404, 'The resource requested was not found or is no longer available'),
  UNAUTHORIZED: entry('UNAUTHORIZED', 401, 'The request could not be completed. The session is not authorized or the credentials are invalid'),
  INVALID_AUTH: entry('INVALID_AUTH', 401, 'The authentication request failed'),
  INVALID_AUTH_METHOD: entry('INVALID_AUTH_METHOD', 400, 'The supplied authentication method is not valid'),
  COULD_NOT_VALIDATE: entry('COULD_NOT_VALIDATE', 400, 'The supplied request contains an invalid document or no valid accept content were available, see cause'),
  COULD_NOT_PARSE_BODY: entry('COULD_NOT_PARSE_BODY', 400, 'The body of the request could not be parsed'),
  INVALID_FILTER: entry('INVALID_FILTER', 400, 'The filter query supplied is not valid'),
  INVALID_SORT_IDENTIFIER: entry('INVALID_SORT_IDENTIFIER', 400, 'The sort order supplied is not valid'),
  INVALID_PAGINATION: entry('INVALID_PAGINATION', 400, 'The pagination properties provided are invalid'),
  REFERENCED_ENTITY_NOT_FOUND: entry('REFERENCED_ENTITY_NOT_FOUND', 400, 'A referenced entity was not found'),
  CAN_NOT_DELETE_REFERENCED_ENTITY: entry('CAN_NOT_DELETE_REFERENCED_ENTITY', 409, 'The entity requested for delete is referenced by another entity and can not be deleted'),
  ENTITY_CAN_NOT_BE_DELETED: entry('ENTITY_CAN_NOT_BE_DELETED', 400, 'The entity requested for delete can not be deleted'),
  ENTITY_CAN_NOT_BE_UPDATED: entry('ENTITY_CAN_NOT_BE_UPDATED', 400, 'The entity requested for update can not be updated'),
  FORBIDDEN: entry('FORBIDDEN', 403, 'The request could not be completed and will never complete due to unchangeable state or conflicts'),
  INVALID_ENROLLMENT_TOKEN: entry('INVALID_ENROLLMENT_TOKEN', 400, 'The supplied token is not valid'),
  ENROLLMENT_EXPIRED: entry('ENROLLMENT_EXPIRED', 400, 'The enrollment has expired'),
  MISSING_OR_INVALID_CSR: entry('MISSING_OR_INVALID_CSR', 400, 'The certificate signing request is missing or invalid'),
  ENROLLMENT_IDENTITY_ALREADY_ENROLLED: entry('ENROLLMENT_IDENTITY_ALREADY_ENROLLED', 409, 'The identity is already enrolled'),
  CERT_IN_USE: entry('CERT_IN_USE', 409, 'The certificate supplied is already associated with another identity'),
  MFA_EXISTS: entry('MFA_EXISTS', 409, 'An MFA record already exists'),
  MFA_NOT_ENROLLED: entry('MFA_NOT_ENROLLED', 409, 'The identity is not enrolled in MFA'),
  MFA_INVALID_TOKEN: entry('MFA_INVALID_TOKEN', 400, 'The token provided was invalid'),
  INVALID_POSTURE: entry('INVALID_POSTURE', 409, 'Failed to pass posture checks for service policies'),
  NO_EDGE_ROUTERS_AVAILABLE: entry('NO_EDGE_ROUTERS_AVAILABLE', 400, 'No edge routers are assigned and online to handle the requested connection'),
  SERVER_TOO_MANY_REQUESTS: entry('SERVER_TOO_MANY_REQUESTS', 429, 'Too many requests to alter state have been issued. Please slow your request rate or try again later'),
  RATE_LIMITED: entry('RATE_LIMITED', 429, 'The request was rate limited'),
  REQUEST_ENTITY_TOO_LARGE: entry('REQUEST_ENTITY_TOO_LARGE', 413, 'The request entity is larger than the server is willing or able to process'),
  METHOD_NOT_ALLOWED: entry('METHOD_NOT_ALLOWED', 405, 'The resource requested does not support this HTTP verb'),
  // Not in OpenZiti's catalog: its HTTP server answers these two in plain text before any handler.
  REQUEST_HEADER_FIELDS_TOO_LARGE: entry('REQUEST_HEADER_FIELDS_TOO_LARGE', 431, 'The request line or headers are larger than the server is willing to process'),
  REQUEST_TIMEOUT: entry('REQUEST_TIMEOUT', 408, 'The request was not received in time'),
  UNAVAILABLE: entry('UNAVAILABLE', 503, 'A service the request depends on is not available, try again later'),
  UNHANDLED: entry('UNHANDLED', 500, 'An unhandled error occurred'),
  ENROLLMENT_EXISTS: entry('ENROLLMENT_EXISTS', 409, 'An enrollment of this method already exists for the identity'),
  INVALID_ENROLL_METHOD: entry('INVALID_ENROLL_METHOD', 400, 'The supplied enrollment method is not valid'),
  EDGE_ROUTER_ENROLL_COMMON_NAME_INVALID: entry('EDGE_ROUTER_ENROLL_COMMON_NAME_INVALID', 400, "The edge router CSR enrollment must have a common name that matches the edge router's id"),
  CA_ALREADY_VERIFIED: entry('CA_ALREADY_VERIFIED', 409, 'CA has already been verified'),
  EXPECTED_PEM_CERTIFICATE: entry('EXPECTED_PEM_CERTIFICATE', 400, "expected PEM block type 'CERTIFICATE'"),
  COULD_NOT_PARSE_DER_BLOCK: entry('COULD_NOT_PARSE_DER_BLOCK', 400, "The certificate's DER block could not be parsed"),
  INVALID_COMMON_NAME: entry('INVALID_COMMON_NAME', 400, 'The common name of the supplied certificate is invalid'),
  CERTIFICATE_FAILED_VALIDATION: entry('CERTIFICATE_FAILED_VALIDATION', 400, "The supplied certificate failed to validate against the CA's certificate chain"),
  CERTIFICATE_IS_NOT_CA: entry('CERTIFICATE_IS_NOT_CA', 400, 'Leading certificate is not a CA'),
  ENROLLMENT_CA_NOT_VALID: entry('ENROLLMENT_CA_NOT_VALID', 400, 'The CA tied to the supplied token is no longer valid'),
  ENROLLMENT_NO_VALID_CAS: entry('ENROLLMENT_NO_VALID_CAS', 400, 'No CAs are valid for this request'),
  CERT_FAILED_VALIDATION: entry('CERT_FAILED_VALIDATION', 400, 'certificate failed to validate against CA'),
  CAN_NOT_UPDATE_AUTHENTICATOR: entry('CAN_NOT_UPDATE_AUTHENTICATOR', 409, 'The authenticator cannot be updated in this fashion'),
  MAX_AUTHENTICATOR_METHODS_REACHED: entry('MAX_AUTHENTICATOR_METHODS_REACHED', 409, 'The identity already has the maximum authenticators of the specified method'),
  INVALID_ENROLLMENT_NOT_ALLOWED: entry('INVALID_ENROLLMENT_NOT_ALLOWED', 400, 'The enrollment is not allowed'),
  INVALID_CLIENT_CERT: entry('INVALID_CLIENT_CERT', 400, 'The provided client certificate is invalid'),
} as const satisfies Record<string, CatalogEntry>;

export type ZitiCode = keyof typeof Codes;

/** Options for a {@link ZitiError} beyond its code. */
export interface ZitiErrorOptions {
  message?: string;
  cause?: FieldCause | Record<string, unknown>;
  causeMessage?: string;
  args?: Record<string, unknown>;
}

/** An expected failure with an OpenZiti error code. Anything else thrown is UNHANDLED. */
export class ZitiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly fieldCause?: FieldCause | Record<string, unknown>;
  readonly causeMessage?: string;
  readonly args?: Record<string, unknown>;

  constructor(code: ZitiCode | CatalogEntry, options: ZitiErrorOptions = {}) {
    const e = typeof code === 'string' ? Codes[code] : code;
    super(options.message ?? e.message);
    this.name = 'ZitiError';
    this.code = e.code;
    this.status = e.status;
    this.fieldCause = options.cause;
    this.causeMessage = options.causeMessage;
    this.args = options.args;
  }
}

/** A COULD_NOT_VALIDATE error naming the field at fault. */
export function fieldError(field: string, reason: string, value?: unknown): ZitiError {
  return new ZitiError('COULD_NOT_VALIDATE', {
    cause: { field, reason, value: value ?? null },
    causeMessage: `${field}: ${reason}`,
  });
}

/** A NOT_FOUND error for an entity type and id. */
export function notFound(entity: string, id: string): ZitiError {
  return new ZitiError('NOT_FOUND', { causeMessage: `${entity} with id ${id} not found` });
}

/** True when the value is a ZitiError (also across module copies). */
export function isZitiError(e: unknown): e is ZitiError {
  return e instanceof ZitiError || (typeof e === 'object' && e !== null && (e as { name?: string }).name === 'ZitiError' && typeof (e as { code?: unknown }).code === 'string');
}

/** Looks a code up in the catalog; unknown codes map to UNHANDLED. */
export function catalogEntry(code: string): CatalogEntry {
  return (Codes as Record<string, CatalogEntry>)[code] ?? Codes.UNHANDLED;
}

/**
 * Runs `check` for the item at `path` of a list (`identities[3]`): a field error it throws names
 * the field under that path (`identities[3].name`), so one bad row of a bulk body is findable.
 */
export function atPath<T>(path: string, check: () => T): T {
  try {
    return check();
  } catch (e) {
    const c = isZitiError(e) ? e.fieldCause : undefined;
    if (c && typeof c.field === 'string') {
      throw fieldError(`${path}.${c.field}`, String(c.reason), c.value);
    }
    throw e;
  }
}

/**
 * Error codes of a connection that could not be made or was lost: Node's socket errors, and
 * the NATS client's for a server it cannot reach or that stopped answering.
 */
const CONNECTION_FAILURE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED',
  'CONNECTION_REFUSED', 'CONNECTION_CLOSED', 'CONNECTION_DRAINING', 'DISCONNECT', 'TIMEOUT', '503',
]);

/** True when `err` (or its `cause`) is a connection that could not be made or was lost. */
export function isConnectionFailure(err: unknown): boolean {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_FAILURE_CODES.has(code)) return true;
  }
  return false;
}

/**
 * A 503 UNAVAILABLE for a dependency that cannot be reached (`what`: "the database"). The
 * message a client sees names no address; `origin`, the error that says which, is kept as the
 * error's `cause` for the log.
 */
export function unavailable(what: string, origin?: unknown): ZitiError {
  const err = new ZitiError('UNAVAILABLE', { causeMessage: `${what} is not available` });
  if (origin !== undefined) Object.defineProperty(err, 'cause', { value: origin, enumerable: false, configurable: true });
  return err;
}

import * as grpc from '@grpc/grpc-js';
import { ZitiError, isConnectionFailure, isZitiError, unavailable } from '@edge/errors';
import type { Logger } from '@edge/logging';

/** Metadata key carrying the OpenZiti error across gRPC (binary: values may be any UTF-8). */
export const ZITI_ERROR_KEY = 'ziti-error-bin';

function grpcStatusFor(httpStatus: number): grpc.status {
  switch (httpStatus) {
    case 400: return grpc.status.INVALID_ARGUMENT;
    case 401: return grpc.status.UNAUTHENTICATED;
    case 403: return grpc.status.PERMISSION_DENIED;
    case 404: return grpc.status.NOT_FOUND;
    case 409: return grpc.status.ALREADY_EXISTS;
    case 413: case 429: return grpc.status.RESOURCE_EXHAUSTED;
    case 503: return grpc.status.UNAVAILABLE;
    default: return grpc.status.INTERNAL;
  }
}

/**
 * What a handler's error is for its caller: a ZitiError as thrown; a lost or refused connection
 * to something the service depends on (NATS, a socket) as UNAVAILABLE; anything else as is (a bug).
 */
export function classifyHandlerError(err: unknown, service: string): unknown {
  if (isZitiError(err) || !isConnectionFailure(err)) return err;
  return unavailable(`a dependency of the ${service} service`, err);
}

/**
 * A handler's error as it is answered (see {@link classifyHandlerError}), logged where the answer
 * hides it: an unexpected error whole, an UNAVAILABLE's cause (the caller learns only that
 * something is unavailable; the log says what and where).
 */
export function answeredHandlerError(thrown: unknown, service: string, log: Logger, where: { method: string; requestId: string }): unknown {
  const err = classifyHandlerError(thrown, service);
  if (!isZitiError(err)) log.error({ err, ...where }, 'unhandled error in gRPC handler');
  else if (err.code === 'UNAVAILABLE' && err.cause !== undefined) log.warn({ err: err.cause, ...where }, 'answered UNAVAILABLE');
  return err;
}

/**
 * The most bytes of an encoded error. As metadata (an HTTP/2 trailer, base64) it must stay well
 * under the peer's limit (8 KB by default): an error of tens of kilobytes made the call, and the
 * next on its connection, fail only at their deadlines.
 */
const MAX_ERROR_BYTES = 4096;
/** The most characters of one string, and entries of one list or object, in a shortened error. */
const MAX_ERROR_TEXT = 1024;
const MAX_ERROR_ITEMS = 8;

/** `v` with strings cut to {@link MAX_ERROR_TEXT} characters (ending in `…`), lists and objects to their first entries. */
function shortened(v: unknown, max = MAX_ERROR_TEXT, depth = 0): unknown {
  if (typeof v === 'string') return v.length > max ? `${v.slice(0, max)}…` : v;
  if (v === null || typeof v !== 'object') return v;
  if (depth >= 3) return Array.isArray(v) ? [] : {};
  if (Array.isArray(v)) return v.slice(0, MAX_ERROR_ITEMS).map((x) => shortened(x, max, depth + 1));
  return Object.fromEntries(Object.entries(v).slice(0, MAX_ERROR_ITEMS).map(([k, x]) => [shortened(k, max), shortened(x, max, depth + 1)]));
}

/**
 * A ZitiError as bytes: its code, status, message and cause, as it crosses gRPC (the value of
 * {@link ZITI_ERROR_KEY}, or one item's error in a batched answer). An error may echo the value
 * at fault, and a client may send one of megabytes: past {@link MAX_ERROR_BYTES} the texts and
 * lists in it are shortened, and if that is not enough, the value and arguments are left out.
 */
export function encodeZitiError(err: ZitiError): Buffer {
  const payload = { code: err.code, status: err.status, message: err.message, cause: err.fieldCause, causeMessage: err.causeMessage, args: err.args };
  for (const candidate of [payload, shortened(payload)]) {
    const text = JSON.stringify(candidate);
    if (Buffer.byteLength(text) <= MAX_ERROR_BYTES) return Buffer.from(text);
  }
  const cause = err.fieldCause && typeof err.fieldCause === 'object' ? err.fieldCause as Record<string, unknown> : undefined;
  // Four texts of at most 200 characters (4 bytes each at most): under the limit whatever they hold.
  const bare = {
    code: err.code, status: err.status, message: shortened(err.message, 200),
    cause: cause && shortened({ field: cause.field, reason: cause.reason, value: '(too large to show)' }, 200), causeMessage: shortened(err.causeMessage, 200),
  };
  return Buffer.from(JSON.stringify(bare));
}

/** The ZitiError {@link encodeZitiError} encoded; undefined when `raw` is not one (empty, malformed). */
export function decodeZitiError(raw: Buffer | string): ZitiError | undefined {
  try {
    const p = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : raw);
    if (typeof p !== 'object' || p === null || typeof p.code !== 'string') return undefined;
    return new ZitiError({ code: p.code, status: p.status, message: p.message }, { message: p.message, cause: p.cause, causeMessage: p.causeMessage, args: p.args });
  } catch {
    return undefined;
  }
}

/**
 * The gRPC status for an error thrown by a handler. A ZitiError keeps its code, status and
 * cause in metadata; anything else becomes a bare INTERNAL with no detail (the stack stays in
 * the server's log).
 */
export function toServiceError(err: unknown): Partial<grpc.ServiceError> {
  const metadata = new grpc.Metadata();
  if (isZitiError(err)) {
    metadata.set(ZITI_ERROR_KEY, encodeZitiError(err));
    return { code: grpcStatusFor(err.status), details: err.code, metadata };
  }
  return { code: grpc.status.INTERNAL, details: 'internal error', metadata };
}

/**
 * The error a client call rejects with: the ZitiError the server threw, UNAVAILABLE when the
 * service (`service`, as clients see it named) cannot be reached in time, else the gRPC error
 * itself (an UNHANDLED at the gateway). The UNAVAILABLE names no address; the gRPC error that
 * does is its `cause`, for the log.
 */
export function fromServiceError(err: grpc.ServiceError, service = 'peer'): Error {
  const raw = err.metadata?.get(ZITI_ERROR_KEY)?.[0];
  const ziti = raw === undefined ? undefined : decodeZitiError(raw);
  if (ziti) return ziti;
  if (err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.DEADLINE_EXCEEDED) {
    return unavailable(`the ${service} service`, err);
  }
  return err;
}

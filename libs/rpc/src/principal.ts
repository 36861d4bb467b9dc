/**
 * The caller's principal as it travels in gRPC call metadata: who made the request the gateway
 * authenticated (identity, API session, MFA state, role attributes), so a service can act for
 * the caller without asking the auth service again.
 *
 * Trust: a principal is trusted as `x-edge-actor` is, as far as the caller is: under
 * `EDGE_GRPC_TLS=mtls` only the controller's own processes can call, otherwise the internal gRPC
 * ports are unauthenticated. A service uses it only for the identity and API session a request
 * names itself, so a caller forging it gains nothing it could not get by calling the auth
 * service directly.
 */

/** What a service may learn of the caller from the metadata. */
export interface CallerPrincipal {
  identityId: string;
  name: string;
  isAdmin: boolean;
  apiSessionId: string;
  roleAttributes: string[];
  permissions: string[];
  configTypes: string[];
  mfa: {
    required: boolean;
    complete: boolean;
    /** When the API session completed MFA (ISO 8601); absent when it did not. */
    passedAt?: string;
  };
}

/** The metadata key (binary: the value is UTF-8 JSON, whatever characters a name holds). */
export const PRINCIPAL_KEY = 'x-edge-principal-bin';

const encoded = new WeakMap<CallerPrincipal, Buffer>();

/** The metadata value of a principal (computed once per principal object). */
export function encodePrincipal(p: CallerPrincipal): Buffer {
  let b = encoded.get(p);
  if (!b) {
    b = Buffer.from(JSON.stringify(p));
    encoded.set(p, b);
  }
  return b;
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * Principals decoded lately, by their metadata value: every call made for one request, and every
 * request of one API session, carries the same bytes. Bounded: emptied when full.
 */
const decoded = new Map<string, CallerPrincipal | undefined>();
const DECODED_MAX = 1024;

/**
 * The principal a metadata value carries; undefined when it is not a well-formed one. The same
 * value gives the same frozen object (so that passing it on encodes it once, see
 * {@link encodePrincipal}).
 */
export function decodePrincipal(value: unknown): CallerPrincipal | undefined {
  if (!Buffer.isBuffer(value)) return undefined;
  const key = value.toString('latin1');
  if (decoded.has(key)) return decoded.get(key);
  if (decoded.size >= DECODED_MAX) decoded.clear();
  const p = parsePrincipal(value);
  decoded.set(key, p);
  return p;
}

function parsePrincipal(value: Buffer): CallerPrincipal | undefined {
  let v: unknown;
  try {
    v = JSON.parse(value.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const p = v as Record<string, unknown>;
  const mfa = p.mfa as Record<string, unknown> | undefined;
  const ok = typeof p.identityId === 'string' && p.identityId !== '' && typeof p.name === 'string' && typeof p.isAdmin === 'boolean'
    && typeof p.apiSessionId === 'string' && p.apiSessionId !== '' && isStrings(p.roleAttributes) && isStrings(p.permissions)
    && isStrings(p.configTypes) && typeof mfa === 'object' && mfa !== null && typeof mfa.required === 'boolean'
    && typeof mfa.complete === 'boolean' && (mfa.passedAt === undefined || (typeof mfa.passedAt === 'string' && !Number.isNaN(Date.parse(mfa.passedAt))));
  if (!ok) return undefined;
  return Object.freeze({
    identityId: p.identityId as string, name: p.name as string, isAdmin: p.isAdmin as boolean, apiSessionId: p.apiSessionId as string,
    roleAttributes: Object.freeze(p.roleAttributes) as string[], permissions: Object.freeze(p.permissions) as string[], configTypes: Object.freeze(p.configTypes) as string[],
    mfa: Object.freeze({ required: mfa.required as boolean, complete: mfa.complete as boolean, ...(mfa.passedAt ? { passedAt: mfa.passedAt as string } : {}) }),
  });
}

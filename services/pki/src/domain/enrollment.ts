/**
 * Enrollment rules that depend on neither storage nor transport (as controller/model/
 * enrollment_manager.go, enrollment_model.go and the enrollment_mod_*.go modules of OpenZiti).
 */
import { createHash, randomUUID } from 'node:crypto';
import { ZitiError, fieldError } from '@edge/errors';

/** Identity methods (ott, ottca, updb) and the router methods: erott (edge), trott (transit). */
export const ENROLLMENT_METHODS = ['ott', 'ottca', 'updb', 'erott', 'trott'] as const;
export type EnrollmentMethod = (typeof ENROLLMENT_METHODS)[number];
/** Methods `POST /enrollments` may create (enrollmentCreate.method). */
export const IDENTITY_METHODS: readonly EnrollmentMethod[] = ['ott', 'ottca', 'updb'];

/** Who an enrollment is for: exactly one of an identity, an edge router, a transit router. */
export type EnrollmentOwner = { identityId: string } | { edgeRouterId: string } | { transitRouterId: string };

/** A stored enrollment with its token and JWT readable (the store keeps them hashed and sealed). */
export interface Enrollment {
  id: string;
  method: EnrollmentMethod;
  identityId: string | null;
  edgeRouterId: string | null;
  transitRouterId: string | null;
  caId: string | null;
  username: string | null;
  token: string;
  jwt: string;
  issuedAt: Date;
  expiresAt: Date;
  tags: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** What a create asks for, as it arrives. */
export interface EnrollmentRequest {
  method: string;
  identityId?: string;
  edgeRouterId?: string;
  transitRouterId?: string;
  caId?: string;
  username?: string;
  /** ISO date-time; absent: now plus the configured duration. */
  expiresAt?: string;
}

/** A checked request: the method, its owner, and the fields the method uses. */
export interface ValidEnrollmentRequest {
  method: EnrollmentMethod;
  identityId: string | null;
  edgeRouterId: string | null;
  transitRouterId: string | null;
  caId: string | null;
  username: string | null;
  expiresAt: Date;
}

/** The claims of an enrollment JWT (ziti.EnrollmentClaims of the OpenZiti SDK). */
export interface EnrollmentClaims {
  em: EnrollmentMethod;
  jti: string;
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  ctrls: string[];
}

/** A new random enrollment token; OpenZiti uses a UUID, and `/enroll/updb` documents `format: uuid`. */
export function newEnrollmentToken(): string {
  return randomUUID();
}

/** The lookup key of a token: only this is stored, so a leaked table redeems nothing. */
export function hashEnrollmentToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The expiry: the requested one (which must lie ahead), or now plus the default duration. */
export function expiryOf(requested: string | undefined, defaultMinutes: number, now = new Date()): Date {
  if (!requested) return new Date(now.getTime() + defaultMinutes * 60_000);
  const at = new Date(requested);
  if (Number.isNaN(at.getTime())) throw fieldError('expiresAt', 'must be a date-time', requested);
  if (at.getTime() <= now.getTime()) throw fieldError('expiresAt', 'must be after the current date and time', requested);
  return at;
}

/** Checks a create against its method: who it is for and what that method needs. */
export function validateEnrollmentRequest(req: EnrollmentRequest, defaultMinutes: number, now = new Date()): ValidEnrollmentRequest {
  const method = req.method as EnrollmentMethod;
  if (!(ENROLLMENT_METHODS as readonly string[]).includes(req.method)) throw fieldError('method', 'unsupported enrollment method', req.method);
  const out: ValidEnrollmentRequest = {
    method, identityId: null, edgeRouterId: null, transitRouterId: null, caId: null, username: null,
    expiresAt: expiryOf(req.expiresAt, defaultMinutes, now),
  };
  if (method === 'erott') return { ...out, edgeRouterId: required('edgeRouterId', req.edgeRouterId) };
  if (method === 'trott') return { ...out, transitRouterId: required('transitRouterId', req.transitRouterId) };
  out.identityId = required('identityId', req.identityId);
  if (method === 'updb') out.username = required('username', req.username?.trim(), 'username not provided');
  if (method === 'ottca') out.caId = required('caId', req.caId, 'ca not found');
  return out;
}

function required(field: string, value: string | undefined, reason = 'is required'): string {
  if (!value) throw fieldError(field, reason, value ?? null);
  return value;
}

/** The answer for a caId that names no CA, on the field the caller used. */
export function caNotFound(caId: string, field = 'caId'): ZitiError {
  return new ZitiError('REFERENCED_ENTITY_NOT_FOUND', { cause: { field, reason: 'ca not found', value: caId }, causeMessage: `ca ${caId} not found` });
}

/** OpenZiti allows one outstanding enrollment per identity and method (enrollment_manager.go). */
export function enrollmentExists(method: string): ZitiError {
  return new ZitiError('ENROLLMENT_EXISTS', { causeMessage: `an enrollment of method ${method} already exists for the identity` });
}

/** The subject an enrollment JWT names: the identity or router id. */
export function subjectOf(e: Pick<Enrollment, 'identityId' | 'edgeRouterId' | 'transitRouterId'>): string {
  return e.identityId ?? e.edgeRouterId ?? e.transitRouterId ?? '';
}

/**
 * The claims OpenZiti signs (Enrollment.FillJwtInfoWithExpiresAt): method, token as jti, the
 * advertised API address as issuer, the owner as subject, an empty audience, the expiry, and the
 * controllers to reach.
 */
export function enrollmentClaims(e: Pick<Enrollment, 'method' | 'token' | 'expiresAt' | 'identityId' | 'edgeRouterId' | 'transitRouterId'>, advertisedAddress: string): EnrollmentClaims {
  const iss = `https://${advertisedAddress}`;
  return { em: e.method, jti: e.token, iss, sub: subjectOf(e), aud: [''], exp: Math.floor(e.expiresAt.getTime() / 1000), ctrls: [iss] };
}

/**
 * Whether a found enrollment can be redeemed through an endpoint naming `method` (empty: the
 * generic endpoint, any method); unknown or used tokens never reach here.
 */
export function checkRedeemable(e: Pick<Enrollment, 'method' | 'expiresAt'>, method: string, now = new Date()): void {
  if (method !== '' && method !== e.method) throw new ZitiError('INVALID_ENROLL_METHOD', { causeMessage: `the token is for enrollment method ${e.method}` });
  if (e.expiresAt.getTime() <= now.getTime()) throw new ZitiError('ENROLLMENT_EXPIRED');
}

/** The answer for a token that is unknown or already used. */
export function invalidToken(): ZitiError {
  return new ZitiError('INVALID_ENROLLMENT_TOKEN');
}

/**
 * Identity rules that do not depend on storage or transport.
 */
import { ZitiError, fieldError } from '@edge/errors';
import { ENROLLMENT_ASK_METHODS, type EnrollmentAsk } from '@edge/events';

export type Precedence = 'default' | 'required' | 'failed';
export type Json = Record<string, unknown>;

/** A JSON object field; a field error when it is not one. */
export function parseJson(field: string, text: string | undefined): Json {
  if (!text) return {};
  try {
    const v: unknown = JSON.parse(text);
    if (v === null) return {};
    if (typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    return v as Json;
  } catch {
    throw fieldError(field, 'must be a JSON object', text);
  }
}

/** The writable fields of an identity, as the domain sees them. */
export interface IdentityInput {
  name: string;
  typeId: string;
  isAdmin: boolean;
  roleAttributes: string[];
  tags: Json;
  appData: Json;
  defaultHostingCost: number;
  defaultHostingPrecedence: Precedence;
  serviceHostingCosts: Record<string, number>;
  serviceHostingPrecedences: Record<string, Precedence>;
  externalId: string | null;
  authPolicyId: string;
  permissions: string[];
}

/** A stored identity. */
export interface Identity extends IdentityInput {
  id: string;
  isDefaultAdmin: boolean;
  disabled: boolean;
  disabledAt: Date | null;
  disabledUntil: Date | null;
  envInfo: Json;
  sdkInfo: Json;
  createdAt: Date;
  updatedAt: Date;
}

/** JSON names of the writable fields; an update mask names a subset of these. */
export const WRITABLE_FIELDS = [
  'name', 'type', 'isAdmin', 'roleAttributes', 'tags', 'appData', 'defaultHostingCost',
  'defaultHostingPrecedence', 'serviceHostingCosts', 'serviceHostingPrecedences', 'externalId',
  'authPolicyId', 'permissions',
] as const;
export type WritableField = (typeof WRITABLE_FIELDS)[number];

export const DEFAULT_AUTH_POLICY_ID = 'default';
const PRECEDENCES = new Set(['default', 'required', 'failed']);

/**
 * The stored type id for a requested type. User, Device and Service are legacy names that
 * OpenZiti stores as Default (controller/internal/routes/identity_router.go getIdentityTypeId).
 */
export function normalizeTypeId(type: string): string {
  switch (type) {
    case 'User': case 'Device': case 'Service': case 'Default': case '':
      return 'Default';
    case 'Router':
      return 'Router';
    default:
      throw fieldError('type', 'must be one of User, Device, Service, Router, Default', type);
  }
}

/** Validates the rules zod at the edge cannot know; throws a field error on the first breach. */
export function validateIdentityInput(input: IdentityInput): void {
  if (!input.name.trim()) throw fieldError('name', 'must not be empty', input.name);
  for (const attr of input.roleAttributes) {
    if (attr.startsWith('#') || attr.startsWith('@')) {
      throw fieldError('roleAttributes', 'role attributes may not start with # or @', attr);
    }
  }
  if (!PRECEDENCES.has(input.defaultHostingPrecedence)) {
    throw fieldError('defaultHostingPrecedence', 'must be one of default, required, failed', input.defaultHostingPrecedence);
  }
  for (const [svc, p] of Object.entries(input.serviceHostingPrecedences)) {
    if (!PRECEDENCES.has(p)) throw fieldError(`serviceHostingPrecedences.${svc}`, 'must be one of default, required, failed', p);
  }
  for (const [svc, c] of Object.entries(input.serviceHostingCosts)) {
    if (!Number.isInteger(c) || c < 0 || c > 65535) throw fieldError(`serviceHostingCosts.${svc}`, 'must be an integer from 0 to 65535', c);
  }
}

const ENROLLMENT_METHODS: ReadonlySet<string> = new Set(ENROLLMENT_ASK_METHODS);

/**
 * The enrollments a new identity is created with, checked for their method only (one of each at
 * most): the pki service, which makes them, judges the rest (the CA, the username).
 */
export function validateEnrollmentAsks(asks: ReadonlyArray<{ method: string; caId?: string; username?: string }>): EnrollmentAsk[] {
  const seen = new Set<string>();
  return asks.map(({ method, caId, username }) => {
    if (!ENROLLMENT_METHODS.has(method)) throw fieldError('enrollment', `must be one of ${ENROLLMENT_ASK_METHODS.join(', ')}`, method);
    if (seen.has(method)) throw fieldError('enrollment', 'one enrollment per method', method);
    seen.add(method);
    return { method: method as EnrollmentAsk['method'], ...(caId !== undefined ? { caId } : {}), ...(username !== undefined ? { username } : {}) };
  });
}

/** Applies an update mask: the fields named take the new values, the rest stay. */
export function applyUpdate(current: Identity, next: IdentityInput, mask: readonly string[]): IdentityInput {
  const out: IdentityInput = { ...current };
  for (const field of mask) {
    const key = field === 'type' ? 'typeId' : (field as keyof IdentityInput);
    if (!(key in next)) throw fieldError(field, 'is not a writable field', field);
    (out as unknown as Record<string, unknown>)[key] = next[key];
  }
  return out;
}

/** The default admin stays an admin; other fields of it may change. */
export function checkDefaultAdminUpdate(current: Identity, next: IdentityInput): void {
  if (current.isDefaultAdmin && !next.isAdmin) {
    throw fieldError('isAdmin', 'the default admin cannot be demoted', false);
  }
}

/** The default admin can never be deleted (OpenZiti answers ENTITY_CAN_NOT_BE_DELETED). */
export function checkDeletable(identity: Identity): void {
  if (identity.isDefaultAdmin) {
    throw new ZitiError('ENTITY_CAN_NOT_BE_DELETED', { causeMessage: 'the default admin identity cannot be deleted' });
  }
}

/**
 * Disabled now: by an admin or a lockout, and not past `disabledUntil` (a lockout ends by
 * itself when its time is up; no sweep has to re-enable the identity).
 */
export function isDisabled(i: Pick<Identity, 'disabled' | 'disabledUntil'>, now = new Date()): boolean {
  return i.disabled && (i.disabledUntil === null || i.disabledUntil.getTime() > now.getTime());
}

/** When a disable of `durationMinutes` (0: until enabled) that starts `now` ends; null: never. */
export function disabledUntil(durationMinutes: number, now = new Date()): Date | null {
  return durationMinutes > 0 ? new Date(now.getTime() + durationMinutes * 60_000) : null;
}

/** Longest a trace may run, so a forgotten one ends by itself. */
export const MAX_TRACE_MS = 24 * 60 * 60 * 1000;

/** The trace an update asks for: on until now + duration with the given or a new id, or off. */
export function traceFor(enabled: boolean, durationMs: number, traceId: string, newTraceId: () => string, now = new Date()) {
  if (!enabled) return null;
  if (durationMs <= 0 || durationMs > MAX_TRACE_MS) throw fieldError('duration', 'must be a duration from 1ms to 24h', durationMs);
  return { traceId: traceId || newTraceId(), until: new Date(now.getTime() + durationMs) };
}

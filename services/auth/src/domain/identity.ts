/**
 * Identities as the auth service knows them: the identity service owns them; this service keeps
 * what authentication and the principal need, from the identity events.
 */
import type { IdentityEvent, Received } from '@edge/events';

/** What authentication and the principal need to know about an identity. */
export interface IdentityInfo {
  id: string;
  name: string;
  isAdmin: boolean;
  isDefaultAdmin: boolean;
  /** Disabled now (an admin, or a lockout not yet expired). */
  disabled: boolean;
  authPolicyId: string;
  /** admin_readonly and entity / entity-action permissions (the Management API enforces them). */
  permissions: string[];
  roleAttributes: string[];
  externalId: string | null;
  /** The version these fields are of (the identity's `updatedAt`), when known. */
  updatedAt?: Date;
}

/** One version of an identity, as an event or the identity service describes it. */
export interface IdentityRecord {
  id: string;
  name: string;
  typeId: string;
  isAdmin: boolean;
  isDefaultAdmin: boolean;
  /** Set by an admin or a lockout (see {@link isDisabledNow}). */
  disabled: boolean;
  disabledUntil: Date | null;
  authPolicyId: string;
  externalId: string | null;
  permissions: string[];
  roleAttributes: string[];
  /** The version: when the identity last changed (or was deleted). */
  updatedAt: Date;
}

/** Disabled now: by an admin, or a lockout whose time is not up. */
export function isDisabledNow(disabled: boolean, disabledUntil: Date | null, now = new Date()): boolean {
  return disabled && (disabledUntil === null || disabledUntil.getTime() > now.getTime());
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const dateOf = (v: unknown): Date | undefined => {
  if (typeof v !== 'string') return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d;
};

/**
 * The identity an `edge.identity.identity.*` event describes; undefined when the payload lacks
 * what the read model keeps (an event from before the identity service announced it all).
 */
export function identityFromEvent(data: unknown): IdentityRecord | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const d = data as Received<IdentityEvent>;
  const updatedAt = dateOf(d.updatedAt);
  const disabledUntil = d.disabledUntil === null ? null : dateOf(d.disabledUntil);
  const ok = typeof d.id === 'string' && d.id !== '' && typeof d.name === 'string' && typeof d.typeId === 'string'
    && typeof d.isAdmin === 'boolean' && typeof d.isDefaultAdmin === 'boolean' && typeof d.disabled === 'boolean'
    && typeof d.authPolicyId === 'string' && (d.externalId === null || typeof d.externalId === 'string')
    && isStrings(d.permissions) && isStrings(d.roleAttributes) && updatedAt !== undefined && disabledUntil !== undefined;
  if (!ok) return undefined;
  return {
    id: d.id as string, name: d.name as string, typeId: d.typeId as string, isAdmin: d.isAdmin as boolean,
    isDefaultAdmin: d.isDefaultAdmin as boolean, disabled: d.disabled as boolean, disabledUntil,
    authPolicyId: (d.authPolicyId as string) || 'default', externalId: d.externalId as string | null,
    permissions: d.permissions as string[], roleAttributes: d.roleAttributes as string[], updatedAt,
  };
}

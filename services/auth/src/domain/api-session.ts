/**
 * API sessions: what a successful authentication yields, and the rules of their sliding expiry.
 */
import { createHash } from 'node:crypto';

/** An API session as stored. The token itself is never kept, only its hash. */
export interface ApiSession {
  id: string;
  tokenHash: string;
  identityId: string;
  authenticatorId: string;
  configTypes: string[];
  ipAddress: string;
  isMfaRequired: boolean;
  isMfaComplete: boolean;
  /** Opened with a certificate the controller issued, which the client may extend. */
  isCertExtendable: boolean;
  lastActivityAt: Date;
  tags: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** What the `edge.auth.api-session.deleted` event names. */
export interface ApiSessionRef {
  id: string;
  identityId: string;
}

/**
 * Activity is written back at most this often per session, so validating a session is not
 * a database write on every request; expiry is minutes, so 15 s of slack does not matter.
 */
export const ACTIVITY_WRITE_INTERVAL_MS = 15_000;

/** The stored form of a token: sha256, hex. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** When the session ends unless used again: last activity plus the timeout. */
export function expiresAt(session: Pick<ApiSession, 'lastActivityAt'>, timeoutMinutes: number): Date {
  return new Date(session.lastActivityAt.getTime() + timeoutMinutes * 60_000);
}

/** True once the session has been idle longer than the timeout. */
export function isExpired(session: Pick<ApiSession, 'lastActivityAt'>, timeoutMinutes: number, now: Date): boolean {
  return expiresAt(session, timeoutMinutes).getTime() < now.getTime();
}

/** Whole seconds left before the session expires (never negative). */
export function expirationSeconds(session: Pick<ApiSession, 'lastActivityAt'>, timeoutMinutes: number, now: Date): number {
  return Math.max(0, Math.floor((expiresAt(session, timeoutMinutes).getTime() - now.getTime()) / 1000));
}

/** True when the stored activity is old enough to be worth writing back. */
export function needsActivityUpdate(session: Pick<ApiSession, 'lastActivityAt'>, now: Date): boolean {
  return now.getTime() - session.lastActivityAt.getTime() >= ACTIVITY_WRITE_INTERVAL_MS;
}

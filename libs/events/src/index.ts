/**
 * The one declaration of the events the services publish: every subject, grouped by the service
 * that owns it, with its payload type, and the patterns consumers subscribe to. Publishers build
 * the payloads these types describe and consumers read them (as {@link Received} until checked),
 * so a subject renamed or a field changed on one side fails to compile on the other.
 */
import { AUTH_SERVICE_PATTERNS, AUTH_SERVICE_SUBJECTS } from './auth.js';
import { IDENTITY_SERVICE_PATTERNS, IDENTITY_SERVICE_SUBJECTS } from './identity.js';
import { PKI_SERVICE_PATTERNS, PKI_SERVICE_SUBJECTS } from './pki.js';
import { POLICY_SERVICE_PATTERNS, POLICY_SERVICE_SUBJECTS } from './policy.js';

export * from './subject.js';
export * from './auth.js';
export * from './identity.js';
export * from './pki.js';
export * from './policy.js';

/** Every subject any service publishes. */
export const ALL_SUBJECTS: readonly string[] = [...AUTH_SERVICE_SUBJECTS, ...IDENTITY_SERVICE_SUBJECTS, ...PKI_SERVICE_SUBJECTS, ...POLICY_SERVICE_SUBJECTS];

/** Every wildcard pattern consumers subscribe to. */
export const ALL_PATTERNS: readonly string[] = [...AUTH_SERVICE_PATTERNS, ...IDENTITY_SERVICE_PATTERNS, ...PKI_SERVICE_PATTERNS, ...POLICY_SERVICE_PATTERNS];

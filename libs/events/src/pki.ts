/** What the pki service publishes: certificate authorities and enrollments. */
import { eventsOf, subject, CHANGE_KINDS, type ChangeKind } from './subject.js';

/** A certificate authority by its id. */
export interface CaEvent {
  id: string;
}

/** A deleted certificate authority, with the certificate it was (what it issued is found by it). */
export interface CaDeletedEvent {
  id: string;
  certPem: string;
}

/** An enrollment as its events name it: its id and its owner (the ids of other kinds null). */
export interface EnrollmentEvent {
  id: string;
  identityId: string | null;
  edgeRouterId: string | null;
  transitRouterId: string | null;
}

/** What happens to a certificate authority that is announced besides its deletion. */
export type CaChange = 'created' | 'updated' | 'verified';

/**
 * Published after a CA was created, updated or verified: `edge.pki.ca.<change>`; payload
 * {@link CaEvent} (gateways reload the CAs they trust).
 */
export const caSubject = <C extends CaChange>(change: C) => subject('pki', 'ca', change);
/** Published after a CA was deleted; payload {@link CaDeletedEvent} (the auth service removes the authenticators it issued). */
export const CA_DELETED = subject('pki', 'ca', 'deleted');

/**
 * Published after an enrollment was created, refreshed (new token and expiry: `updated`) or
 * deleted (explicitly, redeemed, or with its owner or CA): `edge.pki.enrollment.<change>`;
 * payload {@link EnrollmentEvent}, so caches of an identity's or router's outstanding
 * enrollments can drop that owner's.
 */
export const enrollmentSubject = <C extends ChangeKind>(change: C) => subject('pki', 'enrollment', change);

/** Every event of certificate authorities. */
export const CA_EVENTS = eventsOf('pki', 'ca');
/** Every event of enrollments. */
export const ENROLLMENT_EVENTS = eventsOf('pki', 'enrollment');

/** Every subject the pki service publishes. */
export const PKI_SERVICE_SUBJECTS: readonly string[] = [
  ...(['created', 'updated', 'verified'] as const).map((c) => caSubject(c)), CA_DELETED, ...CHANGE_KINDS.map((c) => enrollmentSubject(c)),
];

/** Every pattern consumers of the pki service's events subscribe to. */
export const PKI_SERVICE_PATTERNS: readonly string[] = [CA_EVENTS, ENROLLMENT_EVENTS];

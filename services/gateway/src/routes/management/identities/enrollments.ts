/**
 * The enrollments an identity is created with (identityCreate.enrollment). The pki service owns
 * enrollments and the identity service identities; the gateway creates the identity, then asks
 * the pki service for each enrollment, and removes the identity again when one fails, so nothing
 * half-made remains and the identity service never calls the pki service (which asks it about
 * identities): no call cycle between the two. The identity service records the enrollments
 * asked for in the identity's created event, from which the pki service makes any still missing:
 * a gateway that stops between the two calls leaves no identity without its enrollments.
 */
import { ZitiError, isZitiError } from '@edge/errors';
import type { EnrollmentAsk } from '@edge/events';
import type { identity } from '@edge/proto';
import type { Clients } from '../../../clients.js';

/** What identityCreate.enrollment holds. */
export interface EnrollmentChoice {
  ott?: boolean | null;
  ottca?: string | null;
  updb?: string | null;
}

/** The enrollments asked for, in OpenZiti's order (ott, ottca, updb). */
export function enrollmentAsks(choice: EnrollmentChoice | null | undefined): EnrollmentAsk[] {
  if (!choice) return [];
  const asks: EnrollmentAsk[] = [];
  if (choice.ott) asks.push({ method: 'ott' });
  if (choice.ottca) asks.push({ method: 'ottca', caId: choice.ottca });
  if (choice.updb !== undefined && choice.updb !== null) asks.push({ method: 'updb', username: choice.updb });
  return asks;
}

const FIELDS: Record<string, string> = { caId: 'enrollment.ottca', username: 'enrollment.updb', method: 'enrollment', expiresAt: 'enrollment' };

/** The pki service's error with its field renamed to the identityCreate field the caller sent. */
function asIdentityCreateError(err: unknown): unknown {
  if (!isZitiError(err) || !err.fieldCause || typeof err.fieldCause.field !== 'string') return err;
  const field = FIELDS[err.fieldCause.field];
  if (!field) return err;
  return new ZitiError({ code: err.code, status: err.status, message: err.message }, {
    message: err.message, cause: { ...err.fieldCause, field }, causeMessage: err.causeMessage?.replace(String(err.fieldCause.field), field), args: err.args,
  });
}

/**
 * Creates the identity and the enrollments asked for with it, or neither: an enrollment that
 * fails removes the identity (its deleted event takes any enrollment made before). An enrollment
 * the pki service already made from the created event is answered as if made here.
 */
export async function createIdentityWithEnrollments(clients: Clients, fields: identity.IdentityFields, choice: EnrollmentChoice | null | undefined): Promise<string> {
  const asks = enrollmentAsks(choice);
  const { id } = await clients.identity.createIdentity({ fields, enrollments: asks });
  try {
    for (const ask of asks) {
      await clients.pki.createEnrollment({ method: ask.method, identityId: id, caId: ask.caId, username: ask.username, expiresAt: '', ifAbsent: true });
    }
  } catch (err) {
    await clients.identity.deleteIdentity({ id }).catch(() => undefined);
    throw asIdentityCreateError(err);
  }
  return id;
}

/**
 * The enrollments an identity is created with (identityCreate.enrollment). They are owned by the
 * pki service; this side only says which ones were asked for and names the fields as the
 * caller wrote them.
 */
import { ZitiError, isZitiError } from '@edge/errors';

/** One enrollment to create with an identity, as the pki service takes it. */
export interface EnrollmentAsk {
  method: 'ott' | 'ottca' | 'updb';
  caId?: string;
  username?: string;
}

/** What identityCreate.enrollment holds. */
export interface EnrollmentChoice {
  ott?: boolean;
  ottca?: string;
  updb?: string;
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
export function asIdentityCreateError(err: unknown): unknown {
  if (!isZitiError(err) || !err.fieldCause || typeof err.fieldCause.field !== 'string') return err;
  const field = FIELDS[err.fieldCause.field];
  if (!field) return err;
  return new ZitiError({ code: err.code, status: err.status, message: err.message }, {
    message: err.message, cause: { ...err.fieldCause, field }, causeMessage: err.causeMessage?.replace(String(err.fieldCause.field), field), args: err.args,
  });
}

/**
 * Enrollment with a certificate a CA issued (ottca, ca auto-enrollment).
 */
import { ZitiError } from '@edge/errors';
import type { PkiServiceHandlers } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';

/** The EnrollWithCaCertificate handler. */
export function createCaEnrollmentHandlers(): Pick<AsyncHandlers<PkiServiceHandlers>, 'EnrollWithCaCertificate'> {
  return {
    async EnrollWithCaCertificate() {
      throw new ZitiError('INVALID_ENROLL_METHOD', { causeMessage: 'enrollment with a CA certificate is not available' });
    },
  };
}

/**
 * Enrollment with a token from an external JWT signer (`POST /enroll/token`, OpenZiti's
 * enrollment_mod_token.go): the token's signer must allow it, the identity it names must not
 * exist yet (by externalId), and the identity is created under the signer's enrollment auth
 * policy, with a certificate from the pki service and a cert authenticator when a CSR came along,
 * or to log in with such tokens when not.
 */
import { ZitiError, isZitiError } from '@edge/errors';
import { newId } from '@edge/ids';
import type { AuthServiceHandlers } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import type { AuthPolicies } from './auth-policies.js';
import { DEFAULT_AUTH_POLICY_ID } from './domain/auth-policy.js';
import { checkTokenEnrollmentAllowed, tokenIdentity } from './domain/token-enrollment.js';
import type { EnrolledAuthenticators } from './enrolled-authenticators.js';
import type { ExtJwtVerifier, VerifiedJwt } from './ext-jwt.js';
import type { Identities } from './peers/identity.js';
import type { Revocations } from './revocations.js';

/** Issues the identity's certificate: the pki service's IssueIdentityCertificate. */
export type IssueIdentityCertificate = (identityId: string, csrPem: string) => Promise<{ cert: string; ca: string }>;

/** What token enrollment works with. */
export interface TokenEnrollmentDeps {
  verify: ExtJwtVerifier;
  /** Revoked JWT ids: a revoked token enrolls nobody, as it logs nobody in. */
  revocations: Pick<Revocations, 'isJtiRevoked'>;
  identities: Identities;
  policies: AuthPolicies;
  enrolled: EnrolledAuthenticators;
  issueCertificate: IssueIdentityCertificate;
}

const invalidToken = () => new ZitiError('INVALID_ENROLLMENT_TOKEN');

/** Creates the operation. */
export function createTokenEnrollment(deps: TokenEnrollmentDeps) {
  /** The verified token; any failure, or another signer than the one asked for, is INVALID_ENROLLMENT_TOKEN. */
  async function verified(bearerToken: string, issuerId: string): Promise<VerifiedJwt> {
    if (bearerToken === '') throw invalidToken();
    let result: VerifiedJwt;
    try {
      result = await deps.verify(bearerToken);
    } catch (err) {
      if (isZitiError(err)) throw invalidToken();
      throw err;
    }
    if (issuerId !== '' && result.signer.id !== issuerId) throw invalidToken();
    if (await deps.revocations.isJtiRevoked(result.payload.jti)) throw invalidToken();
    return result;
  }

  return async function enroll(bearerToken: string, issuerId: string, csrPem: string): Promise<{ cert: string; ca: string }> {
    const { signer, payload } = await verified(bearerToken, issuerId);
    const wanted = tokenIdentity(signer, payload as Record<string, unknown>);
    if (await deps.identities.findByExternalId(wanted.externalId)) throw new ZitiError('ENROLLMENT_IDENTITY_ALREADY_ENROLLED');
    const authPolicyId = signer.enrollAuthPolicyId || DEFAULT_AUTH_POLICY_ID;
    const withCertificate = csrPem.trim() !== '';
    checkTokenEnrollmentAllowed(signer, await deps.policies.forIdentity(authPolicyId), withCertificate);

    const id = newId();
    // issued first: a bad CSR leaves nothing behind
    const issued = withCertificate ? await deps.issueCertificate(id, csrPem) : { cert: '', ca: '' };
    await deps.identities.create({ id, ...wanted, authPolicyId });
    if (!withCertificate) return issued;
    try {
      await deps.enrolled.createCert(id, issued.cert);
    } catch (err) {
      await deps.identities.remove(id).catch(() => undefined);
      throw err;
    }
    return issued;
  };
}

/** The EnrollWithToken handler. */
export function createTokenEnrollmentHandlers(enroll: ReturnType<typeof createTokenEnrollment>): Pick<AsyncHandlers<AuthServiceHandlers>, 'EnrollWithToken'> {
  return {
    async EnrollWithToken(req) {
      return enroll(req.bearerToken, req.issuerId, req.clientCsrPem);
    },
  };
}

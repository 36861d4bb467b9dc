/**
 * What the gRPC handlers of the auth service call.
 */
import type { ApiSessions } from '../api-sessions.js';
import type { createApiSessionCertificateHandlers } from '../api-session-certificates.js';
import type { AuthPolicies } from '../auth-policies.js';
import type { createAuthenticate } from '../authenticate.js';
import type { Authenticators } from '../authenticators.js';
import type { CertExtension } from '../cert-extension.js';
import type { EnrolledAuthenticators } from '../enrolled-authenticators.js';
import type { ExtJwtSigners } from '../ext-jwt-signers.js';
import type { MfaOperations } from '../mfa.js';
import type { Identities } from '../peers/identity.js';
import type { Revocations } from '../revocations.js';
import type { SecondaryExtJwtCheck } from '../secondary-ext-jwt.js';
import type { AuthStore } from '../store/api-session.js';
import type { createTokenEnrollment } from '../token-enrollment.js';

/** What the handlers call. */
export interface HandlerDeps {
  authenticate: ReturnType<typeof createAuthenticate>;
  apiSessions: ApiSessions;
  mfa: MfaOperations;
  policies: AuthPolicies;
  store: AuthStore;
  identities: Identities;
  authenticators: Authenticators;
  certExtension: CertExtension;
  tokenEnrollment: ReturnType<typeof createTokenEnrollment>;
  apiSessionCertificates: ReturnType<typeof createApiSessionCertificateHandlers>;
  signers: ExtJwtSigners;
  revocations: Revocations;
  timeoutMinutes: number;
  enrolled: EnrolledAuthenticators;
  secondaryExtJwt: SecondaryExtJwtCheck;
  checkIntegrity: (fix: boolean) => Promise<Array<{ description: string; fixed: boolean }>>;
}

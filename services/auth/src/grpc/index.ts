/**
 * gRPC handlers of the auth service: proto → operation → proto, one file per entity. No rules
 * live here.
 */
import type { AuthServiceHandlers } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import { createCertExtensionHandlers } from '../cert-extension.js';
import { createTokenEnrollmentHandlers } from '../token-enrollment.js';
import { createApiSessionHandlers } from './api-session.js';
import { createAuthPolicyHandlers } from './auth-policy.js';
import { createAuthenticatorHandlers, createEnrolledAuthenticatorHandlers } from './authenticator.js';
import type { HandlerDeps } from './common.js';
import { createExtJwtSignerHandlers } from './ext-jwt-signer.js';
import { createMfaHandlers } from './mfa.js';
import { createRevocationHandlers } from './revocation.js';

export type { HandlerDeps } from './common.js';

/** Every handler of AuthService. */
export function createHandlers(deps: HandlerDeps): AsyncHandlers<AuthServiceHandlers> {
  return {
    ...createMfaHandlers(deps),
    ...createAuthenticatorHandlers(deps.authenticators, deps.identities),
    ...createCertExtensionHandlers(deps.certExtension),
    ...deps.apiSessionCertificates,
    ...createTokenEnrollmentHandlers(deps.tokenEnrollment),
    ...createExtJwtSignerHandlers(deps.signers),
    ...createRevocationHandlers(deps.revocations),
    ...createAuthPolicyHandlers(deps.policies),
    ...createEnrolledAuthenticatorHandlers(deps.enrolled),
    ...createApiSessionHandlers(deps),
    async CheckIntegrity(req) {
      return { issues: await deps.checkIntegrity(req.fix) };
    },
  };
}

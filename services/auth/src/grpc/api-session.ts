/**
 * gRPC handlers of the AuthService: proto → operation → proto. No rules live here.
 */
import type { AuthServiceHandlers, auth } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import type { ApiSessions } from '../api-sessions.js';
import type { createAuthenticate } from '../authenticate.js';
import { expirationSeconds, expiresAt, type ApiSession } from '../domain/api-session.js';
import type { IdentityAuthSummary } from '../domain/authenticator.js';
import { authQueries } from '../domain/mfa.js';
import { requiresTotp } from '../domain/auth-policy.js';
import type { Identities, IdentityInfo } from '../peers/identity.js';
import type { MfaOperations } from '../mfa.js';
import type { AuthPolicies } from '../auth-policies.js';
import { createAuthPolicyHandlers } from './auth-policy.js';
import { createMfaHandlers } from './mfa.js';
import { createAuthenticatorHandlers } from './authenticator.js';
import type { Authenticators } from '../authenticators.js';
import { createCertExtensionHandlers, type CertExtension } from '../cert-extension.js';
import type { createApiSessionCertificateHandlers } from '../api-session-certificates.js';
import { createTokenEnrollmentHandlers, type createTokenEnrollment } from '../token-enrollment.js';
import { createExtJwtSignerHandlers } from './ext-jwt-signer.js';
import type { ExtJwtSigners } from '../ext-jwt-signers.js';
import { createRevocationHandlers } from './revocation.js';
import type { Revocations } from '../revocations.js';
import { API_SESSION_FIELDS, type AuthStore } from '../store/api-session.js';
import { listMeta, listParams, planList } from '@edge/zitiql';
import type { EnrolledAuthenticators } from '../enrolled-authenticators.js';
import type { SecondaryExtJwtCheck } from '../secondary-ext-jwt.js';

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

/** Maps an API session to its proto form; `token` is only given in the answer to Authenticate. */
export function toProtoApiSession(s: ApiSession, identity: IdentityInfo | undefined, timeoutMinutes: number, token = ''): auth.ApiSession {
  return {
    id: s.id,
    token,
    identityId: s.identityId,
    identityName: identity?.name ?? '',
    authenticatorId: s.authenticatorId,
    configTypes: s.configTypes,
    ipAddress: s.ipAddress,
    isMfaRequired: s.isMfaRequired,
    isMfaComplete: s.isMfaComplete,
    isCertExtendable: s.isCertExtendable,
    lastActivityAt: s.lastActivityAt.toISOString(),
    expiresAt: expiresAt(s, timeoutMinutes).toISOString(),
    expirationSeconds: expirationSeconds(s, timeoutMinutes, new Date()),
    tagsJson: JSON.stringify(s.tags),
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
    isAdmin: identity?.isAdmin ?? false,
    authQueries: authQueries(s),
  };
}

function toProtoSummary(s: IdentityAuthSummary): auth.IdentityAuthSummary {
  return {
    identityId: s.identityId,
    updbId: s.updb?.id,
    updbUsername: s.updb?.username,
    certId: s.cert?.id,
    certFingerprint: s.cert?.fingerprint,
    hasApiSession: s.hasApiSession,
    isMfaEnabled: s.isMfaEnabled,
  };
}

/** Creates the AuthService handlers. */
export function createHandlers(deps: HandlerDeps): AsyncHandlers<AuthServiceHandlers> {
  const { apiSessions, store, identities, timeoutMinutes } = deps;

  /** Adds the extension request of the session's certificate authenticator, if any. */
  const withExtendFlags = async (p: auth.ApiSession): Promise<auth.ApiSession> => {
    const a = p.authenticatorId ? await deps.authenticators.get(p.authenticatorId).catch(() => undefined) : undefined;
    if (!a?.extendRequest) return p;
    return { ...p, isCertExtendRequested: true, isCertKeyRollRequested: a.extendRequest.rollKeys };
  };

  return {
    ...createMfaHandlers(deps),
    ...createAuthenticatorHandlers(deps.authenticators, identities),
    ...createCertExtensionHandlers(deps.certExtension),
    ...deps.apiSessionCertificates,
    ...createTokenEnrollmentHandlers(deps.tokenEnrollment),
    ...createExtJwtSignerHandlers(deps.signers),
    ...createRevocationHandlers(deps.revocations),
    ...createAuthPolicyHandlers(deps.policies),
    async Authenticate(req) {
      const { session, token, identity } = await deps.authenticate(req);
      return withExtendFlags(toProtoApiSession(session, identity, timeoutMinutes, token));
    },
    async ValidateSession(req) {
      const notBefore = req.minIdentityUpdatedAt ? new Date(req.minIdentityUpdatedAt) : undefined;
      const { session, identity } = await apiSessions.validate(req.token, notBefore && !Number.isNaN(notBefore.getTime()) ? notBefore : undefined);
      // The identity's policy as it is now: a policy that came to require TOTP after login makes
      // the session partial until MFA is completed.
      const policy = await deps.policies.forIdentity(identity.authPolicyId);
      const current = requiresTotp(policy) && !session.isMfaRequired ? { ...session, isMfaRequired: true } : session;
      const apiSession = toProtoApiSession(current, identity, timeoutMinutes);
      const [pending, summaries] = await Promise.all([deps.secondaryExtJwt(identity, policy, req.bearerToken), store.authSummariesOf([identity.id])]);
      if (pending) apiSession.authQueries = [...(apiSession.authQueries ?? []), { typeId: 'EXT-JWT', provider: 'url', httpUrl: pending.externalAuthUrl ?? '', httpMethod: 'GET', format: '', minLength: 0, maxLength: 0 }];
      return {
        apiSession, isAdmin: identity.isAdmin || identity.isDefaultAdmin, isDefaultAdmin: identity.isDefaultAdmin, isExtJwtPending: pending !== undefined,
        permissions: identity.permissions, roleAttributes: identity.roleAttributes,
        mfaPassedAt: current.isMfaRequired && current.isMfaComplete ? current.updatedAt.toISOString() : '',
        authSummary: toProtoSummary(summaries[0]!), identityUpdatedAt: identity.updatedAt?.toISOString() ?? '',
      };
    },
    async CheckIntegrity(req) {
      return { issues: await deps.checkIntegrity(req.fix) };
    },
    async GetApiSession(req) {
      const { session, identity } = await apiSessions.get(req.id);
      return withExtendFlags(toProtoApiSession(session, identity, timeoutMinutes));
    },
    async ListApiSessions(req) {
      const plan = planList(API_SESSION_FIELDS, listParams(req.query));
      const { items, total } = await store.listApiSessions(plan);
      const names = await identities.findMany(items.map((s) => s.identityId));
      return { apiSessions: items.map((s) => toProtoApiSession(s, names.get(s.identityId), timeoutMinutes)), meta: listMeta(plan, total, API_SESSION_FIELDS) };
    },
    async DeleteApiSession(req) {
      await apiSessions.delete(req.id);
      return {};
    },
    async GetIdentityAuthSummaries(req) {
      const byId = new Map((await store.authSummariesOf(req.identityIds)).map((s) => [s.identityId, s]));
      return { summaries: req.identityIds.map((id) => toProtoSummary(byId.get(id)!)) };
    },
    async CreateCertAuthenticator(req) {
      return { id: await deps.enrolled.createCert(req.identityId, req.certPem) };
    },
    async CreateUpdbAuthenticator(req) {
      return { id: await deps.enrolled.createUpdb(req.identityId, req.username, req.password) };
    },
  };
}

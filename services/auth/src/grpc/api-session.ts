/**
 * gRPC handlers of API sessions (login, validation, listing, ending) and of the identity auth
 * summaries: proto → operation → proto.
 */
import type { AuthServiceHandlers, auth } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import { listMeta, listParams, planList } from '@edge/zitiql';
import { expirationSeconds, expiresAt, type ApiSession } from '../domain/api-session.js';
import type { IdentityAuthSummary } from '../domain/authenticator.js';
import { authQueries } from '../domain/mfa.js';
import { requiresTotp } from '../domain/auth-policy.js';
import type { IdentityInfo } from '../peers/identity.js';
import { API_SESSION_FIELDS } from '../store/api-session.js';
import type { HandlerDeps } from './common.js';

/**
 * Maps an API session to its proto form; `token` is only given in the answer to Authenticate, and
 * `totpEnrolled`, when known, goes with its MFA query.
 */
export function toProtoApiSession(s: ApiSession, identity: IdentityInfo | undefined, timeoutMinutes: number, token = '', totpEnrolled?: boolean): auth.ApiSession {
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
    authQueries: authQueries(s, totpEnrolled),
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

type Handlers = Pick<AsyncHandlers<AuthServiceHandlers>,
  'Authenticate' | 'ValidateSession' | 'GetApiSession' | 'ListApiSessions' | 'DeleteApiSession' | 'GetIdentityAuthSummaries'>;

/** Builds the API session handlers: login, validation, and their management. */
export function createApiSessionHandlers(deps: HandlerDeps): Handlers {
  const { apiSessions, store, identities, timeoutMinutes } = deps;

  /** Adds the extension request of the session's certificate authenticator, if any. */
  const withExtendFlags = async (p: auth.ApiSession): Promise<auth.ApiSession> => {
    const a = p.authenticatorId ? await deps.authenticators.get(p.authenticatorId).catch(() => undefined) : undefined;
    if (!a?.extendRequest) return p;
    return { ...p, isCertExtendRequested: true, isCertKeyRollRequested: a.extendRequest.rollKeys };
  };

  return {
    async Authenticate(req) {
      const { session, token, identity, totpEnrolled } = await deps.authenticate(req);
      const answer = toProtoApiSession(session, identity, timeoutMinutes, token, totpEnrolled);
      // Only a certificate authenticator is asked to be extended: other logins read none.
      return req.method === 'cert' ? withExtendFlags(answer) : answer;
    },
    async ValidateSession(req) {
      const notBefore = req.minIdentityUpdatedAt ? new Date(req.minIdentityUpdatedAt) : undefined;
      const validated = await apiSessions.validate(req.token, notBefore && !Number.isNaN(notBefore.getTime()) ? notBefore : undefined);
      const { session, identity } = validated;
      // The identity's policy as it is now (read with the session): a policy that came to require
      // TOTP after login makes the session partial until MFA is completed.
      const policy = validated.policy ?? await deps.policies.forIdentity(identity.authPolicyId);
      const current = requiresTotp(policy) && !session.isMfaRequired ? { ...session, isMfaRequired: true } : session;
      const [pending, summary] = await Promise.all([deps.secondaryExtJwt(identity, policy, req.bearerToken), store.authSummaryOf(identity.id)]);
      const apiSession = toProtoApiSession(current, identity, timeoutMinutes, undefined, summary.isMfaEnabled);
      if (pending) apiSession.authQueries = [...(apiSession.authQueries ?? []), { typeId: 'EXT-JWT', provider: 'url', httpUrl: pending.externalAuthUrl ?? '', httpMethod: 'GET', format: '', minLength: 0, maxLength: 0 }];
      return {
        apiSession, isAdmin: identity.isAdmin || identity.isDefaultAdmin, isDefaultAdmin: identity.isDefaultAdmin, isExtJwtPending: pending !== undefined,
        permissions: identity.permissions, roleAttributes: identity.roleAttributes,
        mfaPassedAt: current.isMfaRequired && current.isMfaComplete ? current.updatedAt.toISOString() : '',
        authSummary: toProtoSummary(summary), identityUpdatedAt: identity.updatedAt?.toISOString() ?? '',
      };
    },
    async GetApiSession(req) {
      const { session, identity } = await apiSessions.get(req.id);
      // Whether TOTP is enrolled is only said with an MFA query still to answer.
      const totpEnrolled = authQueries(session).length > 0 ? (await store.authSummariesOf([session.identityId]))[0]?.isMfaEnabled : undefined;
      return withExtendFlags(toProtoApiSession(session, identity, timeoutMinutes, '', totpEnrolled));
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
  };
}

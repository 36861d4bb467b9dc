/**
 * HTTP renderings shared by both APIs: API sessions and identity details.
 */
import { entityRef, selfLink } from '@edge/envelope';
import { envInfoOf, sdkInfoOf, type auth, type identity, type pki } from '@edge/proto';
import { renderIdentityEnrollments } from './enrollments.js';

function parse(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** `currentApiSessionDetail` (also used for the authenticate answer). */
export function renderApiSession(s: auth.ApiSession__Output, token: string) {
  return {
    id: s.id,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    _links: selfLink('api-sessions', s.id),
    tags: parse(s.tagsJson),
    // Code queries (MFA) carry a format and lengths; URL queries (EXT-JWT) only where to go.
    authQueries: s.authQueries.map((q) => ({
      typeId: q.typeId, provider: q.provider, httpMethod: q.httpMethod, httpUrl: q.httpUrl,
      ...(q.format ? { format: q.format, minLength: q.minLength, maxLength: q.maxLength } : {}),
      ...(q.isTotpEnrolled !== undefined && q.isTotpEnrolled !== null ? { isTotpEnrolled: q.isTotpEnrolled } : {}),
    })),
    authenticatorId: s.authenticatorId,
    cachedLastActivityAt: s.lastActivityAt,
    cachedUpdatedAt: s.updatedAt,
    configTypes: s.configTypes,
    identity: entityRef('identities', 'identities', s.identityId, s.identityName),
    identityId: s.identityId,
    ipAddress: s.ipAddress,
    isCertExtendRequested: s.isCertExtendRequested,
    isCertExtendable: s.isCertExtendable,
    isCertKeyRollRequested: s.isCertKeyRollRequested,
    isMfaComplete: s.isMfaComplete,
    isMfaRequired: s.isMfaRequired,
    lastActivityAt: s.lastActivityAt,
    token,
    expiresAt: s.expiresAt,
    expirationSeconds: Math.max(0, Math.round((Date.parse(s.expiresAt) - Date.now()) / 1000)),
  };
}

/** The links OpenZiti puts on an identity (controller/internal/routes/identity_api_model.go). */
function identityLinks(id: string, authPolicyId: string) {
  const nested = (name: string) => ({ href: `./identities/${id}/${name}` });
  return {
    ...selfLink('identities', id),
    'edge-router-policies': nested('edge-router-policies'),
    'service-policies': nested('service-policies'),
    'posture-data': nested('posture-data'),
    'failed-service-requests': nested('failed-service-requests'),
    authenticators: nested('authenticators'),
    'auth-policies': { href: `./auth-policies/${authPolicyId}` },
  };
}

function authenticators(s: auth.IdentityAuthSummary__Output | undefined) {
  const out: Record<string, unknown> = {};
  if (s?.updbId) out.updb = { id: s.updbId, username: s.updbUsername ?? '' };
  if (s?.certId) out.cert = { id: s.certId, fingerprint: s.certFingerprint ?? '' };
  return out;
}

/**
 * `identityDetail`: the identity service's record plus the auth service's summary of it and,
 * where the caller fetched them, its outstanding enrollments (pki service).
 */
export function renderIdentity(i: identity.Identity__Output, summary: auth.IdentityAuthSummary__Output | undefined, enrollments?: pki.Enrollment__Output[]) {
  return {
    id: i.id,
    createdAt: i.createdAt,
    updatedAt: i.updatedAt,
    _links: identityLinks(i.id, i.authPolicyId),
    tags: parse(i.tagsJson),
    name: i.name,
    type: entityRef('identity-types', 'identity-types', i.typeId, i.typeId),
    typeId: i.typeId,
    isAdmin: i.isAdmin,
    isDefaultAdmin: i.isDefaultAdmin,
    roleAttributes: i.roleAttributes,
    appData: parse(i.appDataJson),
    defaultHostingCost: i.defaultHostingCost,
    defaultHostingPrecedence: i.defaultHostingPrecedence,
    serviceHostingCosts: i.serviceHostingCosts,
    serviceHostingPrecedences: i.serviceHostingPrecedences,
    externalId: i.externalId ?? null,
    authPolicyId: i.authPolicyId,
    authPolicy: entityRef('auth-policies', 'auth-policies', i.authPolicyId, i.authPolicyId === 'default' ? 'Default' : i.authPolicyId),
    authenticators: authenticators(summary),
    enrollment: renderIdentityEnrollments(enrollments),
    envInfo: envInfoOf(i.envInfo),
    sdkInfo: sdkInfoOf(i.sdkInfo),
    hasApiSession: summary?.hasApiSession ?? false,
    hasEdgeRouterConnection: false,
    edgeRouterConnectionStatus: 'offline',
    isMfaEnabled: summary?.isMfaEnabled ?? false,
    disabled: i.disabled,
    disabledAt: i.disabledAt ?? null,
    disabledUntil: i.disabledUntil ?? null,
    permissions: i.permissions,
    interfaces: [],
  };
}

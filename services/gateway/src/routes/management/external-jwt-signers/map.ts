/**
 * External JWT signer messages ↔ HTTP: `externalJwtSignerDetail`, `clientExternalJwtSignerDetail`
 * and the write requests.
 */
import type { auth } from '@edge/proto';
import { baseEntity, withFields } from '../../shared/entity.js';
import type { ExtJwtSignerBody } from './schemas.js';

/** Every writable field, by JSON name. */
export const ALL_FIELDS = [
  'name', 'certPem', 'jwksEndpoint', 'kid', 'issuer', 'audience', 'claimsProperty', 'useExternalId', 'externalAuthUrl', 'clientId',
  'scopes', 'targetToken', 'enabled', 'enrollToCertEnabled', 'enrollToTokenEnabled', 'enrollAuthPolicyId', 'enrollNameClaimsSelector',
  'enrollAttributeClaimsSelector', 'tags',
];

/** The fields message of a body (absent and null both unset). */
export function toSignerFields(b: ExtJwtSignerBody): auth.ExternalJwtSignerFields {
  const opt = (v: string | null | undefined) => v ?? undefined;
  return {
    name: b.name ?? '', certPem: opt(b.certPem), jwksEndpoint: opt(b.jwksEndpoint), kid: opt(b.kid), issuer: b.issuer ?? '', audience: b.audience ?? '',
    claimsProperty: opt(b.claimsProperty), useExternalId: b.useExternalId ?? false, externalAuthUrl: opt(b.externalAuthUrl), clientId: opt(b.clientId),
    scopes: b.scopes ?? [], targetToken: b.targetToken ?? 'ACCESS', enabled: b.enabled ?? false, enrollToCertEnabled: b.enrollToCertEnabled ?? false,
    enrollToTokenEnabled: b.enrollToTokenEnabled ?? false, enrollAuthPolicyId: b.enrollAuthPolicyId ?? '',
    enrollNameClaimsSelector: b.enrollNameClaimsSelector ?? '', enrollAttributeClaimsSelector: b.enrollAttributeClaimsSelector ?? '',
    tagsJson: JSON.stringify(b.tags ?? {}),
  };
}

/**
 * `externalJwtSignerDetail`. Optional strings that are unset are null, not "", as OpenZiti
 * answers them (external_jwt_signer_api_model.go passes its pointers through): an SDK takes an
 * empty externalAuthUrl for a URL to open.
 */
export function renderSigner(s: auth.ExternalJwtSigner__Output) {
  const f = s.fields!;
  return withFields(baseEntity({ ...s, tagsJson: f.tagsJson }, 'external-jwt-signers'), {
    name: f.name,
    certPem: f.certPem ?? null,
    jwksEndpoint: f.jwksEndpoint ?? null,
    kid: f.kid ?? null,
    issuer: f.issuer,
    audience: f.audience,
    claimsProperty: f.claimsProperty ?? 'sub',
    useExternalId: f.useExternalId,
    externalAuthUrl: f.externalAuthUrl ?? null,
    clientId: f.clientId ?? null,
    scopes: f.scopes,
    targetToken: f.targetToken,
    enabled: f.enabled,
    enrollToCertEnabled: f.enrollToCertEnabled,
    enrollToTokenEnabled: f.enrollToTokenEnabled,
    enrollAuthPolicyId: f.enrollAuthPolicyId,
    enrollNameClaimsSelector: f.enrollNameClaimsSelector,
    enrollAttributeClaimsSelector: f.enrollAttributeClaimsSelector,
    fingerprint: s.fingerprint ?? null,
    commonName: s.commonName ?? '',
    notBefore: s.notBefore ?? s.createdAt,
    notAfter: s.notAfter ?? s.createdAt,
  });
}

/** `clientExternalJwtSignerDetail`: what an SDK needs to find where to get a token (unset strings null, as above). */
export function renderClientSigner(s: auth.ExternalJwtSigner__Output) {
  const f = s.fields!;
  return withFields(baseEntity({ ...s, tagsJson: f.tagsJson }, 'external-jwt-signers'), {
    name: f.name,
    externalAuthUrl: f.externalAuthUrl ?? null,
    audience: f.audience,
    clientId: f.clientId ?? null,
    scopes: f.scopes,
    targetToken: f.targetToken,
    enrollToCertEnabled: f.enrollToCertEnabled,
    enrollToTokenEnabled: f.enrollToTokenEnabled,
  });
}

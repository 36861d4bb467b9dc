/**
 * gRPC handlers of external JWT signers: proto ↔ the signer operations.
 */
import { fieldError } from '@edge/errors';
import type { AuthServiceHandlers, auth } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import { listMeta, listParams, planList } from '@edge/zitiql';
import { EXT_JWT_SIGNER_FIELDS, type ExtJwtSigner, type ExtJwtSignerInput, type TargetToken } from '../domain/ext-jwt-signer.js';
import { EXT_JWT_SIGNER_FIELDS_MAP } from '../store/ext-jwt-signer.js';
import type { ExtJwtSigners } from '../ext-jwt-signers.js';

type Handlers = Pick<AsyncHandlers<AuthServiceHandlers>,
  'CreateExternalJwtSigner' | 'GetExternalJwtSigner' | 'ListExternalJwtSigners' | 'UpdateExternalJwtSigner' | 'DeleteExternalJwtSigner'>;

function tagsOf(json: string): Record<string, unknown> {
  const v: unknown = json ? JSON.parse(json) : {};
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** The domain input of a fields message. */
function toInput(f: auth.ExternalJwtSignerFields__Output | null): ExtJwtSignerInput {
  const x = f ?? ({} as auth.ExternalJwtSignerFields__Output);
  const target = x.targetToken || 'ACCESS';
  if (target !== 'ACCESS' && target !== 'ID') throw fieldError('targetToken', 'must be ACCESS or ID', target);
  return {
    name: x.name ?? '', certPem: x.certPem ?? null, jwksEndpoint: x.jwksEndpoint ?? null, kid: x.kid ?? null, issuer: x.issuer ?? '',
    audience: x.audience ?? '', claimsProperty: x.claimsProperty || 'sub', useExternalId: x.useExternalId ?? false,
    externalAuthUrl: x.externalAuthUrl ?? null, clientId: x.clientId ?? null, scopes: x.scopes ?? [], targetToken: target as TargetToken,
    enabled: x.enabled ?? false, enrollToCertEnabled: x.enrollToCertEnabled ?? false, enrollToTokenEnabled: x.enrollToTokenEnabled ?? false,
    enrollAuthPolicyId: x.enrollAuthPolicyId ?? '', enrollNameClaimsSelector: x.enrollNameClaimsSelector ?? '',
    enrollAttributeClaimsSelector: x.enrollAttributeClaimsSelector ?? '', tags: tagsOf(x.tagsJson ?? ''),
  };
}

function toProto(s: ExtJwtSigner): auth.ExternalJwtSigner {
  const { certificate: cert } = s;
  return {
    id: s.id,
    fields: {
      name: s.name, certPem: s.certPem ?? undefined, jwksEndpoint: s.jwksEndpoint ?? undefined, kid: s.kid ?? undefined, issuer: s.issuer,
      audience: s.audience, claimsProperty: s.claimsProperty, useExternalId: s.useExternalId, externalAuthUrl: s.externalAuthUrl ?? undefined,
      clientId: s.clientId ?? undefined, scopes: s.scopes, targetToken: s.targetToken, enabled: s.enabled, enrollToCertEnabled: s.enrollToCertEnabled,
      enrollToTokenEnabled: s.enrollToTokenEnabled, enrollAuthPolicyId: s.enrollAuthPolicyId, enrollNameClaimsSelector: s.enrollNameClaimsSelector,
      enrollAttributeClaimsSelector: s.enrollAttributeClaimsSelector, tagsJson: JSON.stringify(s.tags ?? {}),
    },
    fingerprint: cert?.fingerprint, commonName: cert?.commonName, notBefore: cert?.notBefore.toISOString(), notAfter: cert?.notAfter.toISOString(),
    createdAt: s.createdAt.toISOString(), updatedAt: s.updatedAt.toISOString(),
  };
}

/** Builds the signer handlers. */
export function createExtJwtSignerHandlers(signers: ExtJwtSigners): Handlers {
  return {
    async CreateExternalJwtSigner(req) {
      return { id: await signers.create(toInput(req)) };
    },
    async GetExternalJwtSigner(req) {
      return toProto(await signers.get(req.id));
    },
    async ListExternalJwtSigners(req) {
      const plan = planList(EXT_JWT_SIGNER_FIELDS_MAP, listParams(req.query));
      const { items, total } = await signers.list(plan, req.enabledOnly);
      return { signers: items.map(toProto), meta: listMeta(plan, total, EXT_JWT_SIGNER_FIELDS_MAP) };
    },
    async UpdateExternalJwtSigner(req) {
      const current = await signers.get(req.id);
      const next = toInput(req.fields);
      const merged: ExtJwtSignerInput = { ...current };
      for (const field of req.updateMask) {
        if (!(EXT_JWT_SIGNER_FIELDS as readonly string[]).includes(field)) throw fieldError(field, 'is not a writable field', field);
        (merged as unknown as Record<string, unknown>)[field] = next[field as keyof ExtJwtSignerInput];
      }
      await signers.update(req.id, merged);
      return {};
    },
    async DeleteExternalJwtSigner(req) {
      await signers.delete(req.id);
      return {};
    },
  };
}

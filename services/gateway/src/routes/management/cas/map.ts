/**
 * Certificate authority messages ↔ HTTP: `caDetail` and the write requests.
 */
import type { pki } from '@edge/proto';
import { baseEntity, withFields, presentFields } from '../../shared/entity.js';
import type { CaBody } from './schemas.js';

/** Every writable field but the claim, by JSON name. */
const FIELDS = ['name', 'identityRoles', 'identityNameFormat', 'isAuthEnabled', 'isAutoCaEnrollmentEnabled', 'isOttCaEnrollmentEnabled', 'tags'];
/** The mask of a PUT: every field, the claim replaced. */
export const ALL_FIELDS = [...FIELDS, 'externalIdClaim'];

/** The mask of a PATCH: the fields present; a claim object changes only the claim fields it carries. */
export function patchMask(body: unknown): string[] {
  const mask = presentFields(body, FIELDS);
  const claim = (body as Record<string, unknown>).externalIdClaim;
  if (claim === null) mask.push('externalIdClaim');
  else if (claim && typeof claim === 'object') mask.push(...Object.keys(claim).map((k) => `externalIdClaim.${k}`));
  return mask;
}

/** The fields message of a body (absent and null both unset). */
export function toCaFields(b: CaBody): pki.CaFields {
  const c = b.externalIdClaim;
  return {
    name: b.name ?? '', certPem: b.certPem ?? '', identityRoles: b.identityRoles ?? [], identityNameFormat: b.identityNameFormat ?? '',
    externalIdClaim: c ? {
      location: c.location ?? '', matcher: c.matcher ?? '', matcherCriteria: c.matcherCriteria ?? '', parser: c.parser ?? '',
      parserCriteria: c.parserCriteria ?? '', index: c.index ?? 0,
    } : undefined,
    isAuthEnabled: b.isAuthEnabled ?? false, isAutoCaEnrollmentEnabled: b.isAutoCaEnrollmentEnabled ?? false,
    isOttCaEnrollmentEnabled: b.isOttCaEnrollmentEnabled ?? false, tagsJson: JSON.stringify(b.tags ?? {}),
  };
}

/** `caDetail`; the verification token only while there is something to verify (as ca_api_model.go). */
export function renderCa(ca: pki.Ca__Output) {
  const f = ca.fields!;
  return withFields(baseEntity({ ...ca, tagsJson: f.tagsJson }, 'cas'), {
    name: f.name,
    fingerprint: ca.fingerprint,
    certPem: f.certPem,
    isVerified: ca.isVerified,
    ...(ca.isVerified ? {} : { verificationToken: ca.verificationToken }),
    isAutoCaEnrollmentEnabled: f.isAutoCaEnrollmentEnabled,
    isOttCaEnrollmentEnabled: f.isOttCaEnrollmentEnabled,
    isAuthEnabled: f.isAuthEnabled,
    identityRoles: f.identityRoles,
    identityNameFormat: f.identityNameFormat,
    ...(f.externalIdClaim ? { externalIdClaim: { ...f.externalIdClaim, index: Number(f.externalIdClaim.index) } } : {}),
  });
}

/**
 * gRPC handlers of the certificate authority RPCs of edge.pki.v1.PkiService: proto → operation → proto.
 */
import type { PkiServiceHandlers, pki as pb } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import { listMeta, listParams, planList } from '@edge/zitiql';
import { CA_FIELDS_MAP } from '../store/ca.js';
import type { Cas } from '../cas.js';
import type { Ca, CaInput, ExternalIdClaim } from '../domain/ca.js';

type Handlers = AsyncHandlers<PkiServiceHandlers>;
export type CaHandlers = Pick<Handlers, 'CreateCa' | 'GetCa' | 'ListCas' | 'UpdateCa' | 'DeleteCa' | 'VerifyCa' | 'GetCaJwt' | 'MatchCertificateCa'>;

function parseTags(json: string): Record<string, unknown> {
  if (!json) return {};
  const v: unknown = JSON.parse(json);
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** The domain input of a CaFields message. */
export function caInputOf(f: pb.CaFields__Output | null | undefined): CaInput {
  const claim = f?.externalIdClaim;
  return {
    name: f?.name ?? '', certPem: f?.certPem ?? '', identityRoles: f?.identityRoles ?? [], identityNameFormat: f?.identityNameFormat ?? '',
    externalIdClaim: claim
      ? { ...claim, index: Number(claim.index) } as ExternalIdClaim
      : null,
    isAuthEnabled: f?.isAuthEnabled ?? false, isAutoCaEnrollmentEnabled: f?.isAutoCaEnrollmentEnabled ?? false,
    isOttCaEnrollmentEnabled: f?.isOttCaEnrollmentEnabled ?? false, tags: parseTags(f?.tagsJson ?? ''),
  };
}

/** The Ca message of a CA. */
export function caToProto(c: Ca): pb.Ca {
  return {
    id: c.id, fingerprint: c.fingerprint, isVerified: c.isVerified, verificationToken: c.verificationToken,
    createdAt: c.createdAt.toISOString(), updatedAt: c.updatedAt.toISOString(),
    fields: {
      name: c.name, certPem: c.certPem, identityRoles: c.identityRoles, identityNameFormat: c.identityNameFormat,
      externalIdClaim: c.externalIdClaim ?? undefined, isAuthEnabled: c.isAuthEnabled, isAutoCaEnrollmentEnabled: c.isAutoCaEnrollmentEnabled,
      isOttCaEnrollmentEnabled: c.isOttCaEnrollmentEnabled, tagsJson: JSON.stringify(c.tags),
    },
  };
}

/** Builds the CA handlers. */
export function createCaHandlers(cas: Cas): CaHandlers {
  return {
    async CreateCa(req) {
      return { id: await cas.create(caInputOf(req)) };
    },
    async GetCa(req) {
      return caToProto(await cas.get(req.id));
    },
    async ListCas(req) {
      const plan = planList(CA_FIELDS_MAP, listParams(req.query));
      const { items, total } = await cas.list(plan);
      return { cas: items.map(caToProto), meta: listMeta(plan, total, CA_FIELDS_MAP) };
    },
    async UpdateCa(req) {
      await cas.update(req.id, caInputOf(req.fields), req.updateMask);
      return {};
    },
    async DeleteCa(req) {
      await cas.delete(req.id);
      return {};
    },
    async VerifyCa(req) {
      await cas.verify(req.id, req.certPem);
      return {};
    },
    async GetCaJwt(req) {
      return { jwt: await cas.jwt(req.id) };
    },
    async MatchCertificateCa(req) {
      return cas.matchCertificate(req.certChainPem);
    },
  };
}

/**
 * gRPC handlers of the enrollment RPCs of edge.pki.v1.PkiService: proto → operation → proto.
 */
import type { PkiServiceHandlers, pki as pb } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import { listMeta, listParams, planList } from '@edge/zitiql';
import { fieldError } from '@edge/errors';
import type { ControllerPki } from '../controller-pki.js';
import type { Enrollment } from '../domain/enrollment.js';
import { enrollmentJwks } from '../domain/enrollment-jwt.js';
import { ENROLLMENT_FIELDS } from '../store/enrollment.js';
import type { Enrollments } from '../enrollments.js';
import type { Redeem } from '../redeem.js';

type Handlers = AsyncHandlers<PkiServiceHandlers>;
export type EnrollmentHandlers = Pick<Handlers, 'CreateEnrollment' | 'GetEnrollment' | 'ListEnrollments' | 'DeleteEnrollment' | 'RefreshEnrollment'
  | 'GetEnrollmentsOf' | 'ReplaceRouterEnrollment' | 'EnrollWithCsr' | 'EnrollUpdb' | 'GetEnrollmentJwks'>;

/** The Enrollment message of an enrollment. */
export function enrollmentToProto(e: Enrollment): pb.Enrollment {
  return {
    id: e.id, method: e.method, identityId: e.identityId ?? undefined, edgeRouterId: e.edgeRouterId ?? undefined,
    transitRouterId: e.transitRouterId ?? undefined, caId: e.caId ?? undefined, username: e.username ?? undefined,
    token: e.token, jwt: e.jwt, issuedAt: e.issuedAt.toISOString(), expiresAt: e.expiresAt.toISOString(),
    tagsJson: JSON.stringify(e.tags), createdAt: e.createdAt.toISOString(), updatedAt: e.updatedAt.toISOString(),
  };
}

const orUndefined = (s: string | undefined) => (s ? s : undefined);

/** Builds the enrollment handlers. */
export function createEnrollmentHandlers(enrollments: Enrollments, redeem: Redeem, pki: ControllerPki): EnrollmentHandlers {
  return {
    async CreateEnrollment(req) {
      return enrollmentToProto(await enrollments.create({
        method: req.method, identityId: orUndefined(req.identityId), edgeRouterId: orUndefined(req.edgeRouterId),
        transitRouterId: orUndefined(req.transitRouterId), caId: orUndefined(req.caId), username: req.username ?? undefined,
        expiresAt: orUndefined(req.expiresAt),
      }, { ifAbsent: req.ifAbsent ?? false }));
    },
    async GetEnrollment(req) {
      return enrollmentToProto(await enrollments.get(req.id));
    },
    async ListEnrollments(req) {
      const plan = planList(ENROLLMENT_FIELDS, listParams(req.query));
      const { items, total } = await enrollments.list(plan);
      return { enrollments: items.map(enrollmentToProto), meta: listMeta(plan, total, ENROLLMENT_FIELDS) };
    },
    async DeleteEnrollment(req) {
      await enrollments.delete(req.id);
      return {};
    },
    async RefreshEnrollment(req) {
      return enrollmentToProto(await enrollments.refresh(req.id, req.expiresAt));
    },
    async GetEnrollmentsOf(req) {
      const found = await enrollments.of({ identityIds: req.identityIds, edgeRouterIds: req.edgeRouterIds, transitRouterIds: req.transitRouterIds });
      return { enrollments: found.map(enrollmentToProto) };
    },
    async ReplaceRouterEnrollment(req) {
      if (req.kind !== 'edge' && req.kind !== 'transit') throw fieldError('kind', 'must be edge or transit', req.kind);
      return enrollmentToProto(await enrollments.replaceRouterEnrollment(req.kind, req.routerId));
    },
    async EnrollWithCsr(req) {
      return redeem.withCsr({ method: req.method, token: req.token, clientCsrPem: req.clientCsrPem, serverCsrPem: req.serverCsrPem });
    },
    async EnrollUpdb(req) {
      await redeem.updb(req.token, req.password);
      return {};
    },
    async GetEnrollmentJwks() {
      const { serverChainPem } = await pki.enrollmentSigners();
      return { jwksJson: JSON.stringify(await enrollmentJwks(serverChainPem)) };
    },
  };
}

/**
 * gRPC handlers of terminators: proto → terminators → proto.
 */
import { listMeta, listParams, planList } from '@edge/zitiql';
import type { session as pb } from '@edge/proto';
import { parsePrecedence, type TerminatorInput } from '../domain/terminator.js';
import { parseTags } from '../domain/session.js';
import { TERMINATOR_FIELDS } from '../store/terminator.js';
import type { Terminators, TerminatorView } from '../terminators.js';

function toProto({ terminator: t, serviceName, routerName, routerKind }: TerminatorView): pb.Terminator {
  return {
    id: t.id, serviceId: t.serviceId, serviceName, routerId: t.routerId, routerName, routerKind, binding: t.binding, address: t.address,
    identity: t.identity, cost: t.cost, precedence: t.precedence, savedPrecedence: t.savedPrecedence ?? '', hostId: t.hostId,
    tagsJson: JSON.stringify(t.tags), createdAt: t.createdAt.toISOString(), updatedAt: t.updatedAt.toISOString(),
  };
}

function inputOf(f: pb.TerminatorFields__Output | null): TerminatorInput {
  return {
    serviceId: f?.service ?? '', routerId: f?.router ?? '', binding: f?.binding ?? '', address: f?.address ?? '', identity: f?.identity ?? '',
    identitySecret: f?.identitySecret ?? '', cost: f?.cost ?? 0, precedence: parsePrecedence(f?.precedence ?? ''), tags: parseTags(f?.tagsJson ?? ''),
  };
}

export function createTerminatorRpcHandlers(terminators: Terminators) {
  return {
    async CreateTerminator(req: pb.CreateTerminatorRequest__Output): Promise<pb.CreatedTerminator> {
      return { id: await terminators.create(inputOf(req.fields)) };
    },
    async GetTerminator(req: pb.TerminatorRef__Output): Promise<pb.Terminator> {
      return toProto(await terminators.get(req.id));
    },
    async ListTerminators(req: pb.ListTerminatorsRequest__Output): Promise<pb.ListTerminatorsResponse> {
      const plan = planList(TERMINATOR_FIELDS, listParams(req.query));
      const { items, total } = await terminators.list(plan, req.serviceId);
      return { terminators: items.map(toProto), meta: listMeta(plan, total, TERMINATOR_FIELDS) };
    },
    async UpdateTerminator(req: pb.UpdateTerminatorRequest__Output): Promise<pb.Empty> {
      await terminators.update(req.id, inputOf(req.fields), req.updateMask);
      return {};
    },
    async DeleteTerminator(req: pb.TerminatorRef__Output): Promise<pb.Empty> {
      await terminators.delete(req.id);
      return {};
    },
  };
}

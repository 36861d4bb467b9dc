/**
 * gRPC handlers of revocations.
 */
import type { AuthServiceHandlers, auth } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import { listMeta, listParams, planList } from '@edge/zitiql';
import { REVOCATION_FIELDS, type Revocation, type Revocations } from '../revocations.js';

type Handlers = Pick<AsyncHandlers<AuthServiceHandlers>, 'CreateRevocation' | 'GetRevocation' | 'ListRevocations'>;

function toProto(r: Revocation): auth.Revocation {
  return {
    id: r.id, type: r.type, tagsJson: JSON.stringify(r.tags ?? {}), expiresAt: r.expires_at.toISOString(),
    createdAt: r.created_at.toISOString(), updatedAt: r.updated_at.toISOString(),
  };
}

/** Builds the revocation handlers. */
export function createRevocationHandlers(revocations: Revocations): Handlers {
  return {
    async CreateRevocation(req) {
      const tags: unknown = req.tagsJson ? JSON.parse(req.tagsJson) : {};
      await revocations.create(req.id, req.type, tags && typeof tags === 'object' ? (tags as Record<string, unknown>) : {});
      return {};
    },
    async GetRevocation(req) {
      return toProto(await revocations.get(req.id));
    },
    async ListRevocations(req) {
      const plan = planList(REVOCATION_FIELDS, listParams(req.query));
      const { items, total } = await revocations.list(plan);
      return { revocations: items.map(toProto), meta: listMeta(plan, total, REVOCATION_FIELDS) };
    },
  };
}

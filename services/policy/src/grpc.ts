/**
 * gRPC handlers of the policy service.
 */
import type { AsyncHandlers } from '@edge/rpc';
import type { PolicyServiceHandlers } from '@edge/proto';
import type { PolicyStore } from './store.js';

/** Builds the handlers over the store. */
export function createPolicyHandlers(store: PolicyStore): AsyncHandlers<PolicyServiceHandlers> {
  return {
    async ListConfigTypes(req) {
      const { items, total } = await store.listConfigTypes(Math.min(req.limit || 10, 500), req.offset);
      return {
        configTypes: items.map((r) => ({
          id: r.id,
          name: r.name,
          schemaJson: JSON.stringify(r.schema),
          tagsJson: JSON.stringify(r.tags),
          createdAt: r.created_at.toISOString(),
          updatedAt: r.updated_at.toISOString(),
        })),
        totalCount: total,
      };
    },
  };
}

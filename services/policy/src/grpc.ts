/**
 * gRPC handlers of the policy service.
 */
import type { AsyncHandlers } from '@edge/rpc';
import type { PolicyServiceHandlers } from '@edge/proto';
import { listMeta, listParams, planList } from '@edge/zitiql';
import { CONFIG_TYPE_FIELDS, type PolicyStore } from './store.js';

/** Builds the handlers over the store. */
export function createPolicyHandlers(store: PolicyStore): AsyncHandlers<PolicyServiceHandlers> {
  return {
    async ListConfigTypes(req) {
      const plan = planList(CONFIG_TYPE_FIELDS, listParams(req.query));
      const { items, total } = await store.listConfigTypes(plan);
      return {
        configTypes: items.map((r) => ({
          id: r.id,
          name: r.name,
          schemaJson: JSON.stringify(r.schema),
          tagsJson: JSON.stringify(r.tags),
          createdAt: r.created_at.toISOString(),
          updatedAt: r.updated_at.toISOString(),
        })),
        meta: listMeta(plan, total, CONFIG_TYPE_FIELDS),
      };
    },
  };
}

/**
 * What every handler group of the policy service shares: its dependencies and small mappers.
 */
import type { AccessReader } from '../access-reader.js';
import type { Stored } from '../domain/entity.js';
import type { policy as pb } from '@edge/proto';
import type { EvaluationCache } from '../evaluation-cache.js';
import type { PolicyEvents } from '../events.js';
import type { EdgeRouterModel } from '../store/edge-router-model.js';
import type { PolicyStores } from '../store/index.js';
import type { IdentityDirectory } from './identities.js';

/** Dependencies of the handlers. */
export interface HandlerDeps {
  stores: PolicyStores;
  events: PolicyEvents;
  identities: IdentityDirectory;
  /** The read model of edge routers (edge-router-model.ts): once filled, an access's edge routers are matched in it with the grant. */
  edgeRouters: EdgeRouterModel;
  /** Evaluated service lists (see evaluation-cache.ts). */
  serviceLists: EvaluationCache<pb.ListServicesResponse>;
  /** Digests of whole service lists (service updates); emptied with `serviceLists`. */
  serviceDigests: EvaluationCache<pb.ServiceListDigest>;
  /** Service accesses from parts kept in memory (access-reader.ts). */
  accessReader: AccessReader;
}

/** The common fields of an entity as proto messages carry them. */
/**
 * The stored fields of a message. Messages add theirs with Object.assign, not as a spread followed
 * by more properties, which Node 20's V8 builds tens of times slower (every item of every list).
 */
export function storedToProto(e: Stored) {
  return { id: e.id, tagsJson: JSON.stringify(e.tags), createdAt: e.createdAt.toISOString(), updatedAt: e.updatedAt.toISOString() };
}

/**
 * What every handler group of the policy service shares: its dependencies and small mappers.
 */
import type { Stored } from '../domain/entity.js';
import type { PolicyEvents } from '../events.js';
import type { PolicyStores } from '../store/index.js';
import type { IdentityDirectory } from './identities.js';

/** Dependencies of the handlers. */
export interface HandlerDeps {
  stores: PolicyStores;
  events: PolicyEvents;
  identities: IdentityDirectory;
}

/** The common fields of an entity as proto messages carry them. */
export function storedToProto(e: Stored) {
  return { id: e.id, tagsJson: JSON.stringify(e.tags), createdAt: e.createdAt.toISOString(), updatedAt: e.updatedAt.toISOString() };
}

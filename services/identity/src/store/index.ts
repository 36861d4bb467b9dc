/**
 * Every store of the identity service over its own schema.
 */
import type { Kysely } from 'kysely';
import type { IdentityEvents } from '../events.js';
import type { IdentityDb } from './db.js';
import { createIdentityStore } from './identity.js';
import { createRouterStore } from './router.js';
import { createServiceConfigStore } from './service-config.js';

/** The stores; identity, router and service-config writes record their events through `events` in their transaction. */
export function createIdentityStores(db: Kysely<IdentityDb>, events: IdentityEvents) {
  return {
    identities: createIdentityStore(db, events),
    routers: createRouterStore(db, events),
    serviceConfigs: createServiceConfigStore(db, events),
  };
}

export type IdentityStores = ReturnType<typeof createIdentityStores>;
export type { IdentityDb } from './db.js';

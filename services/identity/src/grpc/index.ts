/**
 * gRPC handlers of the identity service: proto → domain → store → proto, one file per entity.
 */
import type { AsyncHandlers } from '@edge/rpc';
import type { IdentityServiceHandlers } from '@edge/proto';
import type { IdentityStores } from '../store/index.js';
import { createIdentityHandlers as createIdentityEntityHandlers } from './identity.js';
import { createRouterHandlers } from './router.js';
import { createServiceConfigHandlers } from './service-config.js';

/** Every handler of IdentityService but the config references of the integrity check (wired with the service). */
export function createIdentityHandlers(stores: IdentityStores): Omit<AsyncHandlers<IdentityServiceHandlers>, 'ListConfigReferences' | 'RemoveConfigReferences'> {
  return {
    ...createIdentityEntityHandlers(stores.identities),
    ...createRouterHandlers(stores.routers),
    ...createServiceConfigHandlers(stores.serviceConfigs),
  };
}

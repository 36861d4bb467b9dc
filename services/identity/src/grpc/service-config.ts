/**
 * gRPC handlers of an identity's own service configs. The gateway has checked with the policy
 * service that the services and configs exist and sends each config's type.
 */
import type { AsyncHandlers } from '@edge/rpc';
import type { IdentityServiceHandlers } from '@edge/proto';
import type { ServiceConfigStore } from '../store/service-config.js';

export type ServiceConfigHandlers = Pick<AsyncHandlers<IdentityServiceHandlers>, 'ListServiceConfigs' | 'AssignServiceConfigs' | 'RemoveServiceConfigs'>;

/** Builds the handlers over the store. */
export function createServiceConfigHandlers(store: ServiceConfigStore): ServiceConfigHandlers {
  return {
    async ListServiceConfigs(req) {
      return { configs: await store.list(req.identityId) };
    },
    async AssignServiceConfigs(req) {
      await store.assign(req.identityId, req.configs);
      return {};
    },
    async RemoveServiceConfigs(req) {
      await store.remove(req.identityId, req.configs);
      return {};
    },
  };
}

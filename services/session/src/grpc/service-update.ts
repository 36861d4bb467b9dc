/**
 * gRPC handler of the service-update marker: when the caller's service list last changed.
 */
import type { AsyncHandlers } from '@edge/rpc';
import type { SessionServiceHandlers } from '@edge/proto';
import type { ServiceUpdates } from '../service-updates.js';

export function createServiceUpdateRpcHandlers(observeServiceList: ServiceUpdates): Pick<AsyncHandlers<SessionServiceHandlers>, 'ObserveServiceList'> {
  return {
    async ObserveServiceList(req) {
      const { lastChangeAt, namesPostureChecks } = await observeServiceList(req);
      return { lastChangeAt: lastChangeAt.toISOString(), namesPostureChecks };
    },
  };
}

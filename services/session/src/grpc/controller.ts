/**
 * gRPC handlers of the controller registry.
 */
import { fieldError } from '@edge/errors';
import type { AsyncHandlers } from '@edge/rpc';
import type { SessionServiceHandlers, session as pb } from '@edge/proto';
import type { ControllerRow, ControllerStore } from '../store/controller.js';

function controllerToProto(r: ControllerRow): pb.Controller {
  return {
    id: r.id,
    name: r.name,
    apiAddress: r.api_address,
    certPem: r.cert_pem,
    isOnline: r.is_online,
    lastJoinedAt: r.last_joined_at.toISOString(),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/** Builds the controller registry handlers over the store. */
export function createControllerRpcHandlers(store: ControllerStore): Pick<AsyncHandlers<SessionServiceHandlers>, 'RegisterController' | 'UnregisterController' | 'ListControllers'> {
  return {
    async RegisterController(req) {
      if (!req.id) throw fieldError('id', 'is required', req.id);
      if (!req.apiAddress) throw fieldError('apiAddress', 'is required', req.apiAddress);
      return controllerToProto(await store.upsertController({ id: req.id, name: req.name || req.id, apiAddress: req.apiAddress, certPem: req.certPem }));
    },
    async UnregisterController(req) {
      await store.markOffline(req.id);
      return {};
    },
    async ListControllers() {
      return { controllers: (await store.listControllers()).map(controllerToProto) };
    },
  };
}

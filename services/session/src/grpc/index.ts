/**
 * gRPC handlers of the session service: proto → domain → store → proto, one file per entity.
 */
import type { Logger } from '@edge/logging';
import type { AsyncHandlers } from '@edge/rpc';
import type { SessionServiceHandlers } from '@edge/proto';
import type { ControllerSettings } from '../controller-settings.js';
import type { Sessions } from '../sessions.js';
import type { ServiceUpdates } from '../service-updates.js';
import type { SessionStores } from '../store/index.js';
import type { Terminators } from '../terminators.js';
import { createControllerRpcHandlers } from './controller.js';
import { createControllerSettingRpcHandlers } from './controller-setting.js';
import { createDatabaseRpcHandlers, type DatabaseDeps } from './database.js';
import { createPostureRpcHandlers, type PostureDeps } from './posture.js';
import { createServiceUpdateRpcHandlers } from './service-update.js';
import { createSessionRpcHandlers } from './session.js';
import { createTerminatorRpcHandlers } from './terminator.js';

/** Dependencies of the handlers. */
export interface HandlerDeps {
  stores: Pick<SessionStores, 'controllers' | 'sessions'>;
  sessions: Sessions;
  terminators: Terminators;
  settings: ControllerSettings;
  posture: PostureDeps;
  observeServiceList: ServiceUpdates;
  database: DatabaseDeps;
  log: Logger;
}

/** Every handler of SessionService. */
export function createSessionHandlers(deps: HandlerDeps): AsyncHandlers<SessionServiceHandlers> {
  return {
    ...createControllerRpcHandlers(deps.stores.controllers),
    ...createSessionRpcHandlers(deps.sessions, deps.stores.sessions, deps.log),
    ...createTerminatorRpcHandlers(deps.terminators),
    ...createControllerSettingRpcHandlers(deps.settings),
    ...createPostureRpcHandlers(deps.posture),
    ...createServiceUpdateRpcHandlers(deps.observeServiceList),
    ...createDatabaseRpcHandlers(deps.database),
  };
}

/**
 * Every store of the session service over its own schema.
 */
import { createControllerStore } from './controller.js';
import { createControllerSettingRecords } from './controller-setting.js';
import type { SessionKysely } from './db.js';
import { createIntegrityStore } from './integrity.js';
import { createPostureStore } from './posture.js';
import { createServiceMarkers } from './service-marker.js';
import { createSessionRecords } from './session.js';
import { createTerminatorRecords } from './terminator.js';

export function createSessionStores(db: SessionKysely) {
  return {
    controllers: createControllerStore(db),
    controllerSettings: createControllerSettingRecords(db),
    sessions: createSessionRecords(db),
    terminators: createTerminatorRecords(db),
    posture: createPostureStore(db),
    serviceMarkers: createServiceMarkers(db),
    integrity: createIntegrityStore(db),
  };
}

export type SessionStores = ReturnType<typeof createSessionStores>;
export type { SessionDb } from './db.js';

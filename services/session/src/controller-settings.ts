/**
 * Creating, reading, changing and deleting controller settings. An override needs a controller
 * that registered with this service (OpenZiti: "could not locate controller with id"); an
 * unknown one is REFERENCED_ENTITY_NOT_FOUND on controllerId.
 */
import { fieldError, notFound, ZitiError } from '@edge/errors';
import type { Logger } from '@edge/logging';
import type { ListPlan } from '@edge/zitiql';
import {
  assertCreatable, assertDeletable, changesOf, effectiveOf, GLOBAL_ID,
  type ControllerSetting, type ControllerSettingEffective, type ControllerSettingInput,
} from './domain/controller-setting.js';
import type { ControllerSettingRecords } from './store/controller-setting.js';

const ENTITY = 'controller setting';

export function createControllerSettings({ records, log }: { records: ControllerSettingRecords; log: Logger }) {
  const existing = async (id: string): Promise<ControllerSetting> => {
    const s = await records.get(id);
    if (!s) throw notFound(ENTITY, id);
    return s;
  };

  return {
    async create(controllerId: string, input: ControllerSettingInput): Promise<string> {
      assertCreatable(controllerId);
      if (!(await records.controllerExists(controllerId))) {
        throw new ZitiError('REFERENCED_ENTITY_NOT_FOUND', {
          cause: { field: 'controllerId', reason: 'controller not found', value: controllerId },
          causeMessage: `controller ${controllerId} not found`,
        });
      }
      if (!(await records.insert(controllerId, input))) throw fieldError('controllerId', 'already has controller settings', controllerId);
      log.info({ controllerId }, 'controller settings created');
      return controllerId;
    },

    get: existing,

    list(plan: ListPlan): Promise<{ items: ControllerSetting[]; total: number }> {
      return records.list(plan);
    },

    /** The global settings with the controller's override laid over; NOT_FOUND for an unknown controller. */
    async effective(id: string): Promise<ControllerSettingEffective> {
      const [global, instance] = await Promise.all([existing(GLOBAL_ID), id === GLOBAL_ID ? undefined : records.get(id)]);
      if (id === GLOBAL_ID) return effectiveOf(id, global, global);
      if (!instance && !(await records.controllerExists(id))) throw notFound(ENTITY, id);
      return effectiveOf(id, global, instance);
    },

    /** Changes the masked fields of the global object or of an override. */
    async update(id: string, input: ControllerSettingInput, mask: readonly string[]): Promise<void> {
      const changes = changesOf(id, input, mask);
      if (!(await records.update(id, changes))) throw notFound(ENTITY, id);
      log.info({ controllerSettingId: id, fields: mask }, 'controller settings changed');
    },

    async delete(id: string): Promise<void> {
      assertDeletable(id);
      if (!(await records.delete(id))) throw notFound(ENTITY, id);
      log.info({ controllerSettingId: id }, 'controller settings deleted');
    },
  };
}

export type ControllerSettings = ReturnType<typeof createControllerSettings>;

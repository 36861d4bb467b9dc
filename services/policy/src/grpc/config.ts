/**
 * Handlers of config types and configs.
 */
import { newId } from '@edge/ids';
import { fieldError } from '@edge/errors';
import { listMeta, listParams, planList } from '@edge/zitiql';
import type { policy as pb } from '@edge/proto';
import {
  checkConfigs, CONFIG_KEYS, CONFIG_TYPE_KEYS, parseHolder, parseTarget, validateConfig, validateConfigType,
  type Config, type ConfigInput, type ConfigType, type ConfigTypeInput,
} from '../domain/config.js';
import { applyMask, parseJsonObject } from '../domain/entity.js';
import { CONFIG_FIELDS } from '../store/config.js';
import { CONFIG_TYPE_FIELDS } from '../store/config-type.js';
import { storedToProto, type HandlerDeps } from './common.js';

export function configTypeToProto(t: ConfigType): pb.ConfigType {
  return Object.assign(storedToProto(t), { name: t.name, schemaJson: JSON.stringify(t.schema), target: t.target });
}

export function configToProto(c: Config): pb.Config {
  return Object.assign(storedToProto(c), { name: c.name, configTypeId: c.configTypeId, configTypeName: c.configTypeName, dataJson: JSON.stringify(c.data) });
}

function configTypeInput(f: pb.ConfigTypeFields__Output | null): ConfigTypeInput {
  return { name: f?.name ?? '', schema: parseJsonObject('schema', f?.schemaJson), target: parseTarget(f?.target ?? ''), tags: parseJsonObject('tags', f?.tagsJson) };
}

function configInput(f: pb.ConfigFields__Output | null): ConfigInput {
  return { name: f?.name ?? '', configTypeId: f?.configTypeId ?? '', data: parseJsonObject('data', f?.dataJson), tags: parseJsonObject('tags', f?.tagsJson) };
}

/**
 * The config type a config names. As controller/model/config_model.go: an empty or unknown type
 * is a field error on `type` (OpenZiti's stored name of `configTypeId`).
 */
async function typeOf({ stores }: HandlerDeps, id: string): Promise<ConfigType> {
  if (!id) throw fieldError('type', 'config type must be specified', id);
  const [t] = (await stores.configTypes.findByIdOrName([id])).filter((x) => x.id === id);
  if (!t) throw fieldError('type', 'invalid config type', id);
  return t;
}

export function createConfigHandlers(deps: HandlerDeps) {
  const { stores, events } = deps;
  return {
    async ListConfigTypes(req: pb.ListConfigTypesRequest__Output): Promise<pb.ListConfigTypesResponse> {
      const plan = planList(CONFIG_TYPE_FIELDS, listParams(req.query));
      const { items, total } = await stores.configTypes.list(plan);
      return { configTypes: items.map(configTypeToProto), meta: listMeta(plan, total, CONFIG_TYPE_FIELDS) };
    },
    async GetConfigType(req: pb.IdRequest__Output): Promise<pb.ConfigType> {
      return configTypeToProto(await stores.configTypes.get(req.id));
    },
    async CreateConfigType(req: pb.CreateConfigTypeRequest__Output): Promise<pb.CreatedResponse> {
      const input = configTypeInput(req.fields);
      validateConfigType(input);
      const created = await events.write(async (s, announce) => {
        const c = await s.configTypes.insert(newId(), input);
        await announce('config-type', 'created', { id: c.id, name: c.name });
        return c;
      });
      return { id: created.id };
    },
    async UpdateConfigType(req: pb.UpdateConfigTypeRequest__Output): Promise<pb.Empty> {
      const current = await stores.configTypes.get(req.id);
      const next = applyMask(current, configTypeInput(req.fields), req.updateMask, CONFIG_TYPE_KEYS);
      validateConfigType(next);
      await events.write(async (s, announce) => {
        const updated = await s.configTypes.update(req.id, next);
        await announce('config-type', 'updated', { id: updated.id, name: updated.name });
      });
      return {};
    },
    async DeleteConfigType(req: pb.IdRequest__Output): Promise<pb.Empty> {
      const current = await stores.configTypes.get(req.id);
      await events.write(async (s, announce) => {
        if (await s.configTypes.delete(req.id)) await announce('config-type', 'deleted', { id: current.id, name: current.name });
      });
      return {};
    },

    async ListConfigs(req: pb.ListConfigsRequest__Output): Promise<pb.ListConfigsResponse> {
      if (req.configTypeId !== undefined) await stores.configTypes.get(req.configTypeId);
      if (req.serviceId !== undefined) await stores.services.get(req.serviceId);
      const plan = planList(CONFIG_FIELDS, listParams(req.query));
      const { items, total } = await stores.configs.list(plan, { configTypeId: req.configTypeId, serviceId: req.serviceId });
      return { configs: items.map(configToProto), meta: listMeta(plan, total, CONFIG_FIELDS) };
    },
    async GetConfig(req: pb.IdRequest__Output): Promise<pb.Config> {
      return configToProto(await stores.configs.get(req.id));
    },
    async CreateConfig(req: pb.CreateConfigRequest__Output): Promise<pb.CreatedResponse> {
      const input = configInput(req.fields);
      validateConfig(input, await typeOf(deps, input.configTypeId));
      const created = await events.write(async (s, announce) => {
        const c = await s.configs.insert(newId(), input);
        await announce('config', 'created', { id: c.id, name: c.name });
        return c;
      });
      return { id: created.id };
    },
    async UpdateConfig(req: pb.UpdateConfigRequest__Output): Promise<pb.Empty> {
      const current = await stores.configs.get(req.id);
      const next = applyMask(current, configInput(req.fields), req.updateMask, CONFIG_KEYS);
      validateConfig(next, await stores.configTypes.get(current.configTypeId));
      await events.write(async (s, announce) => {
        const updated = await s.configs.update(req.id, next);
        await announce('config', 'updated', { id: updated.id, name: updated.name, serviceIds: await s.configs.serviceIds(req.id) });
      });
      return {};
    },
    async CheckConfigs(req: pb.CheckConfigsRequest__Output): Promise<pb.Empty> {
      checkConfigs(parseHolder(req.holder), req.configIds, await stores.configs.refs(req.configIds));
      return {};
    },
    async DeleteConfig(req: pb.IdRequest__Output): Promise<pb.Empty> {
      const current = await stores.configs.get(req.id);
      await events.write(async (s, announce) => {
        const { deleted, serviceIds } = await s.configs.delete(req.id);
        if (deleted) await announce('config', 'deleted', { id: current.id, name: current.name, serviceIds });
      });
      return {};
    },
  };
}

/**
 * Handlers of services (management) and of the role attributes of services.
 */
import { newId } from '@edge/ids';
import { listMeta, listParams, planList, withCondition } from '@edge/zitiql';
import { roleAttributesAnswer, roleFilterCondition } from '@edge/roles';
import type { policy as pb } from '@edge/proto';
import { checkConfigs } from '../domain/config.js';
import { applyMask, parseJsonObject } from '../domain/entity.js';
import type { Policy } from '../domain/policy.js';
import { splitRoles, type RoleSemantic, type RoleSplit } from '../domain/roles.js';
import { DEFAULT_TERMINATOR_STRATEGY, SERVICE_KEYS, validateService, type Service, type ServiceInput } from '../domain/service.js';
import { SERVICE_FIELDS, SERVICE_ROLE_COLUMNS, type ServiceScope } from '../store/service.js';
import { storedToProto, type HandlerDeps } from './common.js';

/** The proto message of a service; `extra` carries what an evaluation adds. */
export function serviceToProto(s: Service, extra: Partial<pb.Service> = {}): pb.Service {
  return Object.assign(storedToProto(s), {
    name: s.name, encryptionRequired: s.encryptionRequired, maxIdleTimeMillis: s.maxIdleTimeMillis,
    terminatorStrategy: s.terminatorStrategy, roleAttributes: s.roleAttributes, configs: s.configs,
    permissions: [] as string[], postureQueries: [] as pb.PostureQueryGroup[], configJson: '{}',
  }, extra);
}

/** The service roles of a policy, as a store matches them. */
function serviceRolesOf(p: Policy): [RoleSplit, RoleSemantic] {
  return [splitRoles(p.roles.serviceRoles ?? []), p.semantic];
}

function serviceInput(f: pb.ServiceFields__Output | null): ServiceInput {
  return {
    name: f?.name ?? '', encryptionRequired: f?.encryptionRequired ?? false, maxIdleTimeMillis: Number(f?.maxIdleTimeMillis ?? 0),
    terminatorStrategy: f?.terminatorStrategy || DEFAULT_TERMINATOR_STRATEGY, roleAttributes: f?.roleAttributes ?? [],
    configs: f?.configs ?? [], tags: parseJsonObject('tags', f?.tagsJson),
  };
}

export function createServiceHandlers(deps: HandlerDeps) {
  const { stores, events } = deps;

  /** Validates a service and its configs (each exists, targets services, one per config type). */
  const check = async (input: ServiceInput) => {
    validateService(input);
    checkConfigs('service', input.configs, await stores.configs.refs(input.configs));
  };

  /** The services a list request is narrowed to by its parent resource. */
  const scopeOf = async (req: pb.ListServicesRequest__Output): Promise<ServiceScope> => {
    if (req.configId !== undefined) return { configId: (await stores.configs.get(req.configId)).id };
    if (req.servicePolicyId !== undefined) {
      return { where: stores.services.matching(...serviceRolesOf(await stores.servicePolicies.get(req.servicePolicyId))) };
    }
    if (req.serviceEdgeRouterPolicyId !== undefined) {
      return { where: stores.services.matching(...serviceRolesOf(await stores.serviceEdgeRouterPolicies.get(req.serviceEdgeRouterPolicyId))) };
    }
    if (req.edgeRouter) {
      // The services any service edge router policy selecting this router grants it.
      const scope = { prefix: 'edge_router', id: req.edgeRouter.id, attributes: req.edgeRouter.roleAttributes };
      const every = planList(stores.serviceEdgeRouterPolicies.fields, {}, { unbounded: true });
      const policies = (await stores.serviceEdgeRouterPolicies.list(every, scope)).items;
      return { where: stores.services.matchingAny(policies.map(serviceRolesOf)) };
    }
    return {};
  };

  /** `config` maps of the requested config types (names or ids) for a page of services. */
  const configMaps = async (services: Service[], configTypes: readonly string[]) => {
    const types = await stores.configTypes.findByIdOrName(configTypes);
    return stores.services.configData(services.map((s) => s.id), types.map((t) => t.id));
  };

  return {
    async ListServices(req: pb.ListServicesRequest__Output): Promise<pb.ListServicesResponse> {
      const scope = await scopeOf(req);
      const plan = withCondition(planList(SERVICE_FIELDS, listParams(req.query)), roleFilterCondition(req.query, SERVICE_ROLE_COLUMNS));
      const { items, total } = await stores.services.list(plan, scope);
      const configs = await configMaps(items, req.configTypes);
      return {
        services: items.map((s) => serviceToProto(s, { configJson: JSON.stringify(configs.get(s.id) ?? {}) })),
        meta: listMeta(plan, total, SERVICE_FIELDS),
      };
    },
    async GetService(req: pb.GetServiceRequest__Output): Promise<pb.Service> {
      const service = await stores.services.get(req.id);
      const configs = await configMaps([service], req.configTypes);
      return serviceToProto(service, { configJson: JSON.stringify(configs.get(service.id) ?? {}) });
    },
    async CreateService(req: pb.CreateServiceRequest__Output): Promise<pb.CreatedResponse> {
      const input = serviceInput(req.fields);
      await check(input);
      const created = await events.write(async (s, announce) => {
        const c = await s.services.insert(newId(), input);
        await announce('service', 'created', { id: c.id, name: c.name, roleAttributes: { after: c.roleAttributes } });
        return c;
      });
      return { id: created.id };
    },
    async UpdateService(req: pb.UpdateServiceRequest__Output): Promise<pb.Empty> {
      const current = await stores.services.get(req.id);
      const next = applyMask(current, serviceInput(req.fields), req.updateMask, SERVICE_KEYS);
      await check(next);
      await events.write(async (s, announce) => {
        const updated = await s.services.update(req.id, next);
        await announce('service', 'updated', { id: updated.id, name: updated.name, roleAttributes: { before: current.roleAttributes, after: updated.roleAttributes } });
      });
      return {};
    },
    async DeleteService(req: pb.IdRequest__Output): Promise<pb.Empty> {
      const current = await stores.services.get(req.id);
      await events.write(async (s, announce) => {
        if (await s.services.delete(req.id)) await announce('service', 'deleted', { id: current.id, name: current.name, roleAttributes: { before: current.roleAttributes } });
      });
      return {};
    },
    async ListServiceRoleAttributes(req: pb.ListRoleAttributesRequest__Output): Promise<pb.ListRoleAttributesResponse> {
      const { items, meta } = await roleAttributesAnswer(req.query, (plan) => stores.services.listRoleAttributes(plan));
      return { attributes: items, meta };
    },
  };
}

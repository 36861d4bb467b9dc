/**
 * Handlers of the three policy kinds. They share one implementation: validate the roles,
 * resolve `@` references to ids (asking the identity service for identities), store, publish,
 * and render `*RolesDisplay` with the names of the entities `@` roles name.
 */
import { ZitiError } from '@edge/errors';
import { newId } from '@edge/ids';
import { listMeta, listParams, planList } from '@edge/zitiql';
import type { RoleSemantic } from '@edge/roles';
import { parseJsonObject } from '../domain/entity.js';
import { applyPolicyMask, validatePolicy, type Policy, type PolicyInput, type RoleField } from '../domain/policy.js';
import { displayRoles, refsOf, resolveRoles, type NamedEntity } from '../domain/roles.js';
import type { PolicyStores } from '../store/index.js';
import type { PolicyScope, PolicyStore } from '../store/policy.js';

const STORE_OF = {
  'service-policy': 'servicePolicies', 'edge-router-policy': 'edgeRouterPolicies', 'service-edge-router-policy': 'serviceEdgeRouterPolicies',
} as const;
import { rolesOf } from '../events.js';
import { storedToProto, type HandlerDeps } from './common.js';

/** The fields every policy message has (`type` only for service policies). */
export interface PolicyFieldsMessage {
  name?: string;
  semantic?: string;
  type?: string;
  tagsJson?: string;
  identityRoles?: string[];
  serviceRoles?: string[];
  postureCheckRoles?: string[];
  edgeRouterRoles?: string[];
}

type NamedRole = { role: string; name: string };

/** A policy message: the stored fields, each role list and its display. */
export type PolicyMessage = Record<string, unknown> & { id: string };

function toInput(fields: PolicyFieldsMessage | null, roleFields: readonly RoleField[]): PolicyInput {
  const f = fields ?? {};
  return {
    name: f.name ?? '',
    semantic: (f.semantic || 'AllOf') as RoleSemantic,
    type: (f.type || undefined) as PolicyInput['type'],
    roles: Object.fromEntries(roleFields.map((r) => [r, f[r] ?? []])),
    tags: parseJsonObject('tags', f.tagsJson),
  };
}

/** Looks up the entities `@` roles of a field may name (by id or name). */
function lookups(deps: HandlerDeps): Record<RoleField, (refs: readonly string[]) => Promise<NamedEntity[]>> {
  const { stores, identities } = deps;
  return {
    identityRoles: (refs) => identities.resolve(refs),
    serviceRoles: (refs) => stores.services.resolveRefs(refs),
    postureCheckRoles: (refs) => stores.postureChecks.resolveRefs(refs),
    edgeRouterRoles: (refs) => identities.edgeRouters(refs),
  };
}

/** Builds the list/get/create/update/delete handlers of one policy kind. */
export function createPolicyHandlerSet(deps: HandlerDeps, store: PolicyStore) {
  const kind = store.table;
  const find = lookups(deps);
  /** This kind's store among the stores of a write's transaction. */
  const own = (s: PolicyStores): PolicyStore => s[STORE_OF[kind.subject]];
  const fields = store.fields;

  /** Validates the roles and rewrites `@name` references to `@id`. */
  const resolve = async (input: PolicyInput): Promise<PolicyInput> => {
    validatePolicy(kind, input);
    const roles: PolicyInput['roles'] = {};
    for (const f of kind.roleFields) {
      const given = input.roles[f] ?? [];
      roles[f] = resolveRoles(given, f, await find[f](refsOf(given)));
    }
    return { ...input, roles };
  };

  /** Renders policies with their `*RolesDisplay`, looking names up once per role field. */
  const render = async (policies: Policy[]): Promise<PolicyMessage[]> => {
    const names = new Map<RoleField, Map<string, string>>();
    for (const f of kind.roleFields) {
      const ids = [...new Set(policies.flatMap((p) => refsOf(p.roles[f] ?? [])))];
      const entities = f === 'identityRoles' ? await deps.identities.names(ids) : await find[f](ids);
      names.set(f, new Map(entities.map((e) => [e.id, e.name])));
    }
    return policies.map((p) => {
      const out: PolicyMessage = Object.assign(storedToProto(p), { name: p.name, semantic: p.semantic });
      if (kind.typed) out.type = p.type;
      if (p.isSystem !== undefined) out.isSystem = p.isSystem;
      for (const f of kind.roleFields) {
        out[f] = p.roles[f] ?? [];
        out[`${f}Display`] = displayRoles(p.roles[f] ?? [], names.get(f)!) satisfies NamedRole[];
      }
      return out;
    });
  };

  return {
    async list(query: Parameters<typeof listParams>[0], scope?: PolicyScope) {
      const plan = planList(fields, listParams(query));
      const { items, total } = await store.list(plan, scope);
      return { items: await render(items), meta: listMeta(plan, total, fields) };
    },
    async get(id: string): Promise<PolicyMessage> {
      return (await render([await store.get(id)]))[0]!;
    },
    async create(f: PolicyFieldsMessage | null) {
      const input = await resolve(toInput(f, kind.roleFields));
      const created = await deps.events.write(async (s, announce) => {
        const c = await own(s).insert(newId(), input);
        await announce(kind.subject, 'created', { id: c.id, name: c.name, after: rolesOf(c) });
        return c;
      });
      return { id: created.id };
    },
    async update(id: string, f: PolicyFieldsMessage | null, mask: readonly string[]) {
      const current = await store.get(id);
      if (current.isSystem) throw new ZitiError('ENTITY_CAN_NOT_BE_UPDATED', { causeMessage: `${kind.entity} ${id} is a system policy, kept by the controller` });
      const next = await resolve(applyPolicyMask(kind, current, toInput(f, kind.roleFields), mask));
      await deps.events.write(async (s, announce) => {
        // The roles as they are when the write takes its lock, not as read before the call.
        const before = await own(s).get(id, { lock: true });
        const updated = await own(s).update(id, next);
        await announce(kind.subject, 'updated', { id: updated.id, name: updated.name, before: rolesOf(before), after: rolesOf(updated) });
      });
      return {};
    },
    async delete(id: string) {
      const current = await store.get(id);
      if (current.isSystem) throw new ZitiError('ENTITY_CAN_NOT_BE_DELETED', { causeMessage: `${kind.entity} ${id} is a system policy, kept by the controller` });
      await deps.events.write(async (s, announce) => {
        // Gone meanwhile (a concurrent delete): NOT_FOUND, as the check above would have answered.
        const before = await own(s).get(id, { lock: true });
        if (await own(s).delete(id)) await announce(kind.subject, 'deleted', { id: before.id, name: before.name, before: rolesOf(before) });
      });
      return {};
    },
  };
}

/** The handlers of the three kinds, by RPC name. */
export function createPolicyHandlers(deps: HandlerDeps) {
  const { stores } = deps;
  const sp = createPolicyHandlerSet(deps, stores.servicePolicies);
  const erp = createPolicyHandlerSet(deps, stores.edgeRouterPolicies);
  const serp = createPolicyHandlerSet(deps, stores.serviceEdgeRouterPolicies);

  /** Policies whose service roles select a service (`/services/{id}/...-policies`). */
  const serviceScope = async (serviceId: string | undefined): Promise<PolicyScope | undefined> => {
    if (serviceId === undefined) return undefined;
    const service = await stores.services.get(serviceId);
    return { prefix: 'service', id: service.id, attributes: service.roleAttributes };
  };

  /** The scope of a RoleScope message (an identity or edge router, by id and attributes). */
  const roleScope = (prefix: string, m: { id: string; roleAttributes: string[] } | null | undefined): PolicyScope | undefined =>
    m ? { prefix, id: m.id, attributes: m.roleAttributes } : undefined;

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Any = any;
  return {
    async ListServicePolicies(req: Any) {
      const { items, meta } = await sp.list(req.query, roleScope('identity', req.identity) ?? (await serviceScope(req.serviceId)));
      return { servicePolicies: items, meta };
    },
    GetServicePolicy: (req: Any) => sp.get(req.id),
    CreateServicePolicy: (req: Any) => sp.create(req.fields),
    UpdateServicePolicy: (req: Any) => sp.update(req.id, req.fields, req.updateMask),
    DeleteServicePolicy: (req: Any) => sp.delete(req.id),

    async ListEdgeRouterPolicies(req: Any) {
      const { items, meta } = await erp.list(req.query, roleScope('identity', req.identity) ?? roleScope('edge_router', req.edgeRouter));
      return { edgeRouterPolicies: items, meta };
    },
    GetEdgeRouterPolicy: (req: Any) => erp.get(req.id),
    CreateEdgeRouterPolicy: (req: Any) => erp.create(req.fields),
    UpdateEdgeRouterPolicy: (req: Any) => erp.update(req.id, req.fields, req.updateMask),
    DeleteEdgeRouterPolicy: (req: Any) => erp.delete(req.id),

    async ListServiceEdgeRouterPolicies(req: Any) {
      const { items, meta } = await serp.list(req.query, roleScope('edge_router', req.edgeRouter) ?? (await serviceScope(req.serviceId)));
      return { serviceEdgeRouterPolicies: items, meta };
    },
    GetServiceEdgeRouterPolicy: (req: Any) => serp.get(req.id),
    CreateServiceEdgeRouterPolicy: (req: Any) => serp.create(req.fields),
    UpdateServiceEdgeRouterPolicy: (req: Any) => serp.update(req.id, req.fields, req.updateMask),
    DeleteServiceEdgeRouterPolicy: (req: Any) => serp.delete(req.id),
  };
}

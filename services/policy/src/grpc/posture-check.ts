/**
 * Handlers of posture checks and posture check types.
 */
import type { PolicyRoles } from '@edge/events';
import { newId } from '@edge/ids';
import { listMeta, listParams, planList } from '@edge/zitiql';
import type { policy as pb } from '@edge/proto';
import { roleAttributesAnswer } from '@edge/roles';
import { applyMask, parseJsonObject } from '../domain/entity.js';
import {
  checkTypeUnchanged, mergeData, normalizeData, splitMask, parsePostureCheckType, POSTURE_CHECK_KEYS, validatePostureCheck,
  type PostureCheck, type PostureCheckInput,
} from '../domain/posture-check.js';
import { splitRoles } from '../domain/roles.js';
import { rolesOf } from '../events.js';
import type { PolicyStores } from '../store/index.js';
import { POSTURE_CHECK_FIELDS, POSTURE_CHECK_TYPE_FIELDS, type PostureCheckTypeRow } from '../store/posture-check.js';
import { storedToProto, type HandlerDeps } from './common.js';
import { operatingSystemsOf } from './posture-definition.js';

export function postureCheckToProto(c: PostureCheck): pb.PostureCheck {
  return Object.assign(storedToProto(c), { name: c.name, typeId: c.typeId, roleAttributes: c.roleAttributes, version: c.version, dataJson: JSON.stringify(c.data) });
}

function postureCheckTypeToProto(t: PostureCheckTypeRow): pb.PostureCheckType {
  return {
    id: t.id, name: t.name, operatingSystems: operatingSystemsOf(t.operating_systems), version: '1', tagsJson: JSON.stringify(t.tags),
    createdAt: t.created_at.toISOString(), updatedAt: t.updated_at.toISOString(),
  };
}

function input(f: pb.PostureCheckFields__Output | null): PostureCheckInput {
  const typeId = parsePostureCheckType(f?.typeId ?? '');
  return {
    name: f?.name ?? '', typeId, roleAttributes: f?.roleAttributes ?? [],
    data: parseJsonObject('data', f?.dataJson), tags: parseJsonObject('tags', f?.tagsJson),
  };
}

/** The service policies whose posture check roles select the check with any of these attribute sets. */
async function selectingPolicies(s: PolicyStores, id: string, ...attributeSets: string[][]): Promise<PolicyRoles[]> {
  const byId = new Map<string, PolicyRoles>();
  for (const attributes of attributeSets) {
    for (const p of await s.servicePolicies.selecting({ prefix: 'posture_check', id, attributes })) byId.set(p.id, rolesOf(p));
  }
  return [...byId.values()];
}

export function createPostureCheckHandlers(deps: HandlerDeps) {
  const { stores, events } = deps;
  return {
    async ListPostureChecks(req: pb.ListPostureChecksRequest__Output): Promise<pb.ListPostureChecksResponse> {
      let scope: { ids: string[] } | undefined;
      if (req.servicePolicyId !== undefined) {
        const p = await stores.servicePolicies.get(req.servicePolicyId);
        scope = { ids: (await stores.postureChecks.matching(splitRoles(p.roles.postureCheckRoles ?? []), p.semantic)).map((c) => c.id) };
      }
      const plan = planList(POSTURE_CHECK_FIELDS, listParams(req.query));
      const { items, total } = await stores.postureChecks.list(plan, scope);
      return { postureChecks: items.map(postureCheckToProto), meta: listMeta(plan, total, POSTURE_CHECK_FIELDS) };
    },
    async GetPostureCheck(req: pb.IdRequest__Output): Promise<pb.PostureCheck> {
      return postureCheckToProto(await stores.postureChecks.get(req.id));
    },
    async CreatePostureCheck(req: pb.CreatePostureCheckRequest__Output): Promise<pb.CreatedResponse> {
      const given = input(req.fields);
      const next = { ...given, data: normalizeData(given.typeId, given.data) };
      validatePostureCheck(next);
      const created = await events.write(async (s, announce) => {
        const c = await s.postureChecks.insert(newId(), next);
        await announce('posture-check', 'created', {
          id: c.id, name: c.name, roleAttributes: { after: c.roleAttributes }, servicePolicies: await selectingPolicies(s, c.id, c.roleAttributes),
        });
        return c;
      });
      return { id: created.id };
    },
    async UpdatePostureCheck(req: pb.UpdatePostureCheckRequest__Output): Promise<pb.Empty> {
      const current = await stores.postureChecks.get(req.id);
      const given = input(req.fields);
      checkTypeUnchanged(current, given);
      const { entityMask, dataFields } = splitMask(current.typeId, req.updateMask);
      const next = applyMask(current, given, entityMask, POSTURE_CHECK_KEYS);
      next.data = normalizeData(current.typeId, mergeData(current.data, given.data, dataFields));
      validatePostureCheck(next);
      await events.write(async (s, announce) => {
        const updated = await s.postureChecks.update(req.id, next);
        await announce('posture-check', 'updated', {
          id: updated.id, name: updated.name, roleAttributes: { before: current.roleAttributes, after: updated.roleAttributes },
          servicePolicies: await selectingPolicies(s, updated.id, current.roleAttributes, updated.roleAttributes),
        });
      });
      return {};
    },
    async DeletePostureCheck(req: pb.IdRequest__Output): Promise<pb.Empty> {
      const current = await stores.postureChecks.get(req.id);
      await events.write(async (s, announce) => {
        const servicePolicies = await selectingPolicies(s, current.id, current.roleAttributes);
        if (await s.postureChecks.delete(req.id)) await announce('posture-check', 'deleted', { id: current.id, name: current.name, roleAttributes: { before: current.roleAttributes }, servicePolicies });
      });
      return {};
    },
    async ListPostureCheckTypes(req: pb.ListPostureCheckTypesRequest__Output): Promise<pb.ListPostureCheckTypesResponse> {
      const plan = planList(POSTURE_CHECK_TYPE_FIELDS, listParams(req.query));
      const { items, total } = await stores.postureChecks.listTypes(plan);
      return { postureCheckTypes: items.map(postureCheckTypeToProto), meta: listMeta(plan, total, POSTURE_CHECK_TYPE_FIELDS) };
    },
    async GetPostureCheckType(req: pb.IdRequest__Output): Promise<pb.PostureCheckType> {
      return postureCheckTypeToProto(await stores.postureChecks.getType(req.id));
    },
    async ListPostureCheckRoleAttributes(req: pb.ListRoleAttributesRequest__Output): Promise<pb.ListRoleAttributesResponse> {
      const { items, meta } = await roleAttributesAnswer(req.query, (plan) => stores.postureChecks.listRoleAttributes(plan));
      return { attributes: items, meta };
    },
  };
}

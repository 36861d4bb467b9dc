/**
 * gRPC handlers of identities and identity types, and their proto ↔ domain mapping.
 */
import { newId } from '@edge/ids';
import { listMeta, listParams, planList, withCondition } from '@edge/zitiql';
import { matchRolesCondition, roleAttributesAnswer, roleFilterCondition, selectedByCondition } from '@edge/roles';
import type { AsyncHandlers } from '@edge/rpc';
import { envInfoOf, sdkInfoOf, type IdentityServiceHandlers, type identity as pb } from '@edge/proto';
import {
  applyUpdate, traceFor, checkDefaultAdminUpdate, checkDeletable, disabledUntil, isDisabled, normalizeTypeId, parseJson, validateEnrollmentAsks, validateIdentityInput,
  DEFAULT_AUTH_POLICY_ID, type Identity, type IdentityInput, type Json, type Precedence,
} from '../domain/identity.js';
import { IDENTITY_FIELDS, IDENTITY_ROLE_COLUMNS, IDENTITY_TYPE_FIELDS, type IdentityStore } from '../store/identity.js';
import type { RouterHandlers } from './router.js';
import type { ServiceConfigHandlers } from './service-config.js';

/** The domain input of an IdentityFields message. */
export function fieldsToInput(f: pb.IdentityFields__Output | null | undefined): IdentityInput {
  const x = f ?? ({} as pb.IdentityFields__Output);
  return {
    name: x.name ?? '',
    typeId: normalizeTypeId(x.typeId ?? ''),
    isAdmin: x.isAdmin ?? false,
    roleAttributes: x.roleAttributes ?? [],
    tags: parseJson('tags', x.tagsJson),
    appData: parseJson('appData', x.appDataJson),
    defaultHostingCost: x.defaultHostingCost ?? 0,
    defaultHostingPrecedence: (x.defaultHostingPrecedence || 'default') as Precedence,
    serviceHostingCosts: x.serviceHostingCosts ?? {},
    serviceHostingPrecedences: (x.serviceHostingPrecedences ?? {}) as Record<string, Precedence>,
    externalId: x.externalId ?? null,
    authPolicyId: x.authPolicyId || DEFAULT_AUTH_POLICY_ID,
    permissions: x.permissions ?? [],
  };
}

/** The proto message of a stored identity; a lockout past its end shows as enabled. */
export function identityToProto(i: Identity): pb.Identity {
  const disabled = isDisabled(i);
  return {
    id: i.id,
    name: i.name,
    typeId: i.typeId,
    isAdmin: i.isAdmin,
    isDefaultAdmin: i.isDefaultAdmin,
    roleAttributes: i.roleAttributes,
    tagsJson: JSON.stringify(i.tags),
    appDataJson: JSON.stringify(i.appData),
    defaultHostingCost: i.defaultHostingCost,
    defaultHostingPrecedence: i.defaultHostingPrecedence,
    serviceHostingCosts: i.serviceHostingCosts,
    serviceHostingPrecedences: i.serviceHostingPrecedences,
    externalId: i.externalId ?? undefined,
    authPolicyId: i.authPolicyId,
    disabled,
    disabledAt: disabled ? i.disabledAt?.toISOString() : undefined,
    disabledUntil: disabled ? i.disabledUntil?.toISOString() : undefined,
    envInfo: envInfoOf(i.envInfo),
    sdkInfo: sdkInfoOf(i.sdkInfo),
    permissions: i.permissions,
    createdAt: i.createdAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
  };
}

/** An identity type row as the store reads it. */
export interface IdentityTypeRecord {
  id: string;
  name: string;
  tags: Json;
  created_at: Date;
  updated_at: Date;
}

/** The proto message of an identity type. */
export function identityTypeToProto(t: IdentityTypeRecord): pb.IdentityType {
  return { id: t.id, name: t.name, tagsJson: JSON.stringify(t.tags ?? {}), createdAt: t.created_at.toISOString(), updatedAt: t.updated_at.toISOString() };
}

/** Builds the handlers over a store (which records the events of its writes). */
export function createIdentityHandlers(store: IdentityStore): Omit<AsyncHandlers<IdentityServiceHandlers>, keyof RouterHandlers | keyof ServiceConfigHandlers | 'ListConfigReferences' | 'RemoveConfigReferences'> {
  /**
   * The field rules. That an authPolicyId names an auth policy, and the enrollments a new
   * identity is created with, are the caller's to see to (the gateway asks their owners), so
   * this service calls neither the auth nor the pki service: it records the enrollments asked
   * for in the created event, from which the pki service makes any the caller did not.
   */
  async function validate(input: IdentityInput): Promise<void> {
    validateIdentityInput(input);
  }

  return {
    async CreateIdentity(req) {
      const input = fieldsToInput(req.fields);
      await validate(input);
      const enrollments = validateEnrollmentAsks(req.enrollments ?? []);
      const created = await store.insert(req.id || newId(), input, { enrollments });
      return { id: created.id };
    },

    async GetIdentity(req) {
      return identityToProto(await store.get(req.id));
    },

    async GetIdentities(req) {
      const found = await store.findMany(req.ids);
      return { identities: found.map(identityToProto) };
    },

    async ListIdentities(req) {
      const plan = withCondition(
        withCondition(planList(IDENTITY_FIELDS, listParams(req.query)), roleFilterCondition(req.query, IDENTITY_ROLE_COLUMNS)),
        selectedByCondition(req.selectedBy, IDENTITY_ROLE_COLUMNS),
      );
      const { items, total } = await store.list(plan);
      return { identities: items.map(identityToProto), meta: listMeta(plan, total, IDENTITY_FIELDS) };
    },

    async ListIdentityTypes(req) {
      const plan = planList(IDENTITY_TYPE_FIELDS, listParams(req.query));
      const { items, total } = await store.listTypes(plan);
      return { identityTypes: items.map(identityTypeToProto), meta: listMeta(plan, total, IDENTITY_TYPE_FIELDS) };
    },

    async ListIdentityRoleAttributes(req) {
      const { items, meta } = await roleAttributesAnswer(req.query, (plan) => store.listRoleAttributes(plan));
      return { roleAttributes: items, meta };
    },

    async UpdateIdentityTracing(req) {
      const trace = traceFor(req.enabled, Number(req.durationMs), req.traceId, newId);
      await store.setTrace(req.id, trace && { ...trace, channels: req.channels });
      return trace ? { enabled: true, traceId: trace.traceId, until: trace.until.toISOString() } : { enabled: false, traceId: '' };
    },

    async MatchIdentities(req) {
      return { ids: await store.matchIds(matchRolesCondition(req, IDENTITY_ROLE_COLUMNS)) };
    },

    async GetIdentityType(req) {
      return identityTypeToProto(await store.getType(req.id));
    },

    async UpdateIdentity(req) {
      const current = await store.get(req.id);
      const next = applyUpdate(current, fieldsToInput(req.fields), req.updateMask);
      await validate(next);
      checkDefaultAdminUpdate(current, next);
      await store.update(req.id, next);
      return {};
    },

    async DeleteIdentity(req) {
      const current = await store.get(req.id);
      checkDeletable(current);
      await store.delete(req.id);
      return {};
    },

    async EnsureDefaultAdmin(req) {
      const existing = await store.findDefaultAdmin();
      if (existing) return identityToProto(existing);
      try {
        const created = await store.insert(newId(), {
          name: req.name || 'Default Admin', typeId: 'Default', isAdmin: true, roleAttributes: [], tags: {}, appData: {},
          defaultHostingCost: 0, defaultHostingPrecedence: 'default', serviceHostingCosts: {}, serviceHostingPrecedences: {},
          externalId: null, authPolicyId: DEFAULT_AUTH_POLICY_ID, permissions: [],
        }, { isDefaultAdmin: true });
        return identityToProto(created);
      } catch (err) {
        // Another replica created it first: the partial unique index allows only one.
        const winner = await store.findDefaultAdmin();
        if (winner) return identityToProto(winner);
        throw err;
      }
    },

    async CountIdentitiesByAuthPolicy(req) {
      return { count: await store.countByAuthPolicy(req.authPolicyId) };
    },

    async DisableIdentity(req) {
      await store.setDisabled(req.id, true, disabledUntil(req.durationMinutes));
      return {};
    },

    async EnableIdentity(req) {
      await store.setDisabled(req.id, false, null);
      return {};
    },
  };
}

/**
 * gRPC handlers of the identity service: proto → domain → store → proto.
 */
import { newId } from '@edge/ids';
import { listMeta, listParams, planList, withCondition } from '@edge/zitiql';
import { matchRolesCondition, roleAttributesPage, roleFilterCondition } from '@edge/roles';
import type { AsyncHandlers } from '@edge/rpc';
import type { IdentityServiceHandlers } from '@edge/proto';
import { applyUpdate, checkDefaultAdminUpdate, checkDeletable, validateIdentityInput, DEFAULT_AUTH_POLICY_ID } from './domain/identity.js';
import { IDENTITY_FIELDS, IDENTITY_ROLE_COLUMNS, IDENTITY_TYPE_FIELDS, type IdentityStore } from './store.js';
import type { IdentityEvents } from './events.js';
import type { RouterHandlers } from './router-grpc.js';
import { fieldsToInput, identityToProto, identityTypeToProto, parseJson } from './map.js';

/** Builds the handlers over a store and the event publisher. */
export function createIdentityHandlers(store: IdentityStore, events: IdentityEvents): Omit<AsyncHandlers<IdentityServiceHandlers>, keyof RouterHandlers> {
  return {
    async CreateIdentity(req) {
      const input = fieldsToInput(req.fields);
      validateIdentityInput(input);
      const created = await store.insert(newId(), input);
      await events.created(created);
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
      const plan = withCondition(planList(IDENTITY_FIELDS, listParams(req.query)), roleFilterCondition(req.query, IDENTITY_ROLE_COLUMNS));
      const { items, total } = await store.list(plan);
      return { identities: items.map(identityToProto), meta: listMeta(plan, total, IDENTITY_FIELDS) };
    },

    async ListIdentityTypes(req) {
      const plan = planList(IDENTITY_TYPE_FIELDS, listParams(req.query));
      const { items, total } = await store.listTypes(plan);
      return { identityTypes: items.map(identityTypeToProto), meta: listMeta(plan, total, IDENTITY_TYPE_FIELDS) };
    },

    async ListIdentityRoleAttributes(req) {
      return roleAttributesPage(req.query, (plan) => store.listRoleAttributes(plan));
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
      validateIdentityInput(next);
      checkDefaultAdminUpdate(current, next);
      const updated = await store.update(req.id, next);
      await events.updated(updated);
      return {};
    },

    async DeleteIdentity(req) {
      const current = await store.get(req.id);
      checkDeletable(current);
      if (await store.delete(req.id)) await events.deleted(current);
      return {};
    },

    async UpdateIdentityEnvironment(req) {
      const env = req.envInfoJson ? parseJson('envInfo', req.envInfoJson) : undefined;
      const sdk = req.sdkInfoJson ? parseJson('sdkInfo', req.sdkInfoJson) : undefined;
      await store.updateEnvironment(req.id, env, sdk);
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
        await events.created(created);
        return identityToProto(created);
      } catch (err) {
        // Another replica created it first: the partial unique index allows only one.
        const winner = await store.findDefaultAdmin();
        if (winner) return identityToProto(winner);
        throw err;
      }
    },
  };
}

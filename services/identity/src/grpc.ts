/**
 * gRPC handlers of the identity service: proto → domain → store → proto.
 */
import { newId } from '@edge/ids';
import { ZitiError } from '@edge/errors';
import type { AsyncHandlers } from '@edge/rpc';
import type { IdentityServiceHandlers } from '@edge/proto';
import {
  applyUpdate, authPolicyNotFound, checkDefaultAdminUpdate, checkDeletable, disabledUntil, needsAuthPolicyCheck, validateIdentityInput,
  DEFAULT_AUTH_POLICY_ID, type IdentityInput,
} from './domain/identity.js';
import type { AuthPolicyLookup } from './auth-policies.js';
import type { IdentityStore } from './store.js';
import type { IdentityEvents } from './events.js';
import { fieldsToInput, identityToProto, parseJson } from './map.js';

const MAX_LIMIT = 500;

/** Builds the handlers over a store, the event publisher and the auth service's policies. */
export function createIdentityHandlers(store: IdentityStore, events: IdentityEvents, authPolicies: AuthPolicyLookup): AsyncHandlers<IdentityServiceHandlers> {
  /** The field rules, and an authPolicyId naming a policy the auth service knows. */
  async function validate(input: IdentityInput): Promise<void> {
    validateIdentityInput(input);
    if (needsAuthPolicyCheck(input) && !(await authPolicies.exists(input.authPolicyId))) throw authPolicyNotFound(input.authPolicyId);
  }

  return {
    async CreateIdentity(req) {
      const input = fieldsToInput(req.fields);
      await validate(input);
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
      if (req.filter && req.filter.trim() !== '') {
        // The filter language is compiled per resource by the lists work (issue 3).
        throw new ZitiError('INVALID_FILTER', { causeMessage: 'filters are not supported on this list yet' });
      }
      const limit = Math.min(req.limit || 10, MAX_LIMIT);
      const { items, total } = await store.list(limit, req.offset);
      return { identities: items.map(identityToProto), totalCount: total, limit, offset: req.offset, filterableFields: [] };
    },

    async UpdateIdentity(req) {
      const current = await store.get(req.id);
      const next = applyUpdate(current, fieldsToInput(req.fields), req.updateMask);
      await validate(next);
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

    async CountIdentitiesByAuthPolicy(req) {
      return { count: await store.countByAuthPolicy(req.authPolicyId) };
    },

    async DisableIdentity(req) {
      const disabled = await store.setDisabled(req.id, true, disabledUntil(req.durationMinutes));
      await events.disabled(disabled);
      await events.updated(disabled);
      return {};
    },

    async EnableIdentity(req) {
      await events.updated(await store.setDisabled(req.id, false, null));
      return {};
    },
  };
}

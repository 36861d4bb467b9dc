/**
 * Auth policy operations: CRUD with its rules, and the policy an identity logs in under.
 */
import { newId } from '@edge/ids';
import {
  DEFAULT_AUTH_POLICY_ID, checkDeletable, namedSigners, unknownSigner, validateAuthPolicy, type AuthPolicy, type AuthPolicyInput,
} from './domain/auth-policy.js';
import type { ListPlan } from '@edge/zitiql';
import type { AuthPolicyPage, AuthPolicyStore } from './store/auth-policy.js';
import type { Identities } from './peers/identity.js';
import type { ExtJwtSignerStore } from './store/ext-jwt-signer.js';

/** Creates the auth policy operations. */
export function createAuthPolicies(deps: {
  policyStore: AuthPolicyStore;
  identities: Identities;
  signers: Pick<ExtJwtSignerStore, 'existing'>;
}) {
  const { policyStore, identities, signers } = deps;

  /** The field rules, and external JWT signers that exist. */
  async function validate(input: AuthPolicyInput): Promise<void> {
    validateAuthPolicy(input);
    const named = namedSigners(input);
    const known = await signers.existing(named.map((n) => n.id));
    const missing = named.find((n) => !known.has(n.id));
    if (missing) throw unknownSigner(missing.field, missing.id);
  }

  return {
    async create(input: AuthPolicyInput): Promise<string> {
      await validate(input);
      const id = newId();
      await policyStore.insert(id, input);
      return id;
    },

    get: (id: string): Promise<AuthPolicy> => policyStore.get(id),

    list: (plan: ListPlan): Promise<AuthPolicyPage> => policyStore.list(plan),

    async update(id: string, input: AuthPolicyInput): Promise<void> {
      await validate(input);
      await policyStore.update(id, input);
    },

    /** Refuses the default policy and one an identity still names (the identity service knows). */
    async delete(id: string): Promise<void> {
      await policyStore.get(id);
      checkDeletable(id, id === DEFAULT_AUTH_POLICY_ID ? 0 : await identities.countByAuthPolicy(id));
      await policyStore.delete(id);
    },

    /** The policy an identity logs in under; the default one when its own is gone. */
    async forIdentity(authPolicyId: string): Promise<AuthPolicy> {
      return (await policyStore.find(authPolicyId)) ?? policyStore.get(DEFAULT_AUTH_POLICY_ID);
    },
  };
}

/** The auth policy operations. */
export type AuthPolicies = ReturnType<typeof createAuthPolicies>;

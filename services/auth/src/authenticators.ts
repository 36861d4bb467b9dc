/**
 * Authenticator operations with their rules: an identity that exists and has no authenticator
 * of the method yet, passwords that meet the identity's auth policy, a caller changing its own
 * password only with the current one, and the end of the API sessions opened with an
 * authenticator that goes (as controller/model/authenticator_manager.go in OpenZiti).
 */
import { newId } from '@edge/ids';
import { ZitiError, fieldError, notFound } from '@edge/errors';
import type { ListPlan } from '@edge/zitiql';
import type { AuthPolicies } from './auth-policies.js';
import type { AuthenticatorStore } from './store/authenticator.js';
import { checkPassword } from './domain/auth-policy.js';
import { certFingerprint, methodMax, type Authenticator } from './domain/authenticator.js';
import { issuedBy } from './domain/certificate.js';
import { hashPassword, verifyPassword } from './domain/password.js';
import type { Identities } from './peers/identity.js';
import type { NetworkIssuer } from './network-issuer.js';

/** A create request. */
export interface AuthenticatorCreate {
  identityId: string;
  method: string;
  username: string;
  password: string;
  certPem: string;
  tags: Record<string, unknown>;
}

/** A replace or patch; fields not in `mask` stay. `currentPassword` is set for the caller's own. */
export interface AuthenticatorChange {
  id: string;
  ownerIdentityId?: string;
  username: string;
  password: string;
  tags: Record<string, unknown>;
  mask: readonly string[];
  currentPassword?: string;
}

interface Deps {
  store: AuthenticatorStore;
  identities: Identities;
  policies: AuthPolicies;
  issuedByNetwork: NetworkIssuer;
}

// as apierror.NewAuthenticatorCannotBeUpdated: only a updb authenticator has credentials to change
const cannotUpdate = (why: string) => new ZitiError('CAN_NOT_UPDATE_AUTHENTICATOR', { causeMessage: why });

/** Builds the authenticator operations. */
export function createAuthenticators({ store, identities, policies, issuedByNetwork }: Deps) {
  async function policyOf(identityId: string) {
    const identity = await identities.find(identityId);
    return policies.forIdentity(identity?.authPolicyId ?? 'default');
  }

  async function get(id: string, ownerIdentityId?: string): Promise<Authenticator> {
    const a = await store.find(id);
    if (!a || (ownerIdentityId && a.identityId !== ownerIdentityId)) throw notFound('authenticator', id);
    return a;
  }

  async function newCredentials(req: AuthenticatorCreate) {
    if (req.method === 'updb') {
      if (!req.username) throw fieldError('username', 'is required for method updb', req.username);
      checkPassword(await policyOf(req.identityId), req.password);
      return { username: req.username, passwordHash: await hashPassword(req.password) };
    }
    const fingerprint = certFingerprint(req.certPem);
    if (!fingerprint) throw fieldError('certPem', 'must be a PEM encoded X.509 certificate', null);
    return { fingerprint, certPem: req.certPem, isIssuedByNetwork: await issuedByNetwork(req.certPem) };
  }

  /** Deletes authenticators with the API sessions opened with them (and their events); how many went. */
  async function remove(ids: string[]): Promise<number> {
    return (await store.deleteWithSessions(ids)).removed;
  }

  return {
    get,

    list: (plan: ListPlan, ownerIdentityId?: string) => store.list(plan, ownerIdentityId),

    async create(req: AuthenticatorCreate): Promise<string> {
      if (req.method !== 'updb' && req.method !== 'cert') throw fieldError('method', 'must be updb or cert', req.method);
      if (!(await identities.find(req.identityId))) {
        throw new ZitiError('REFERENCED_ENTITY_NOT_FOUND', { cause: { field: 'identityId', reason: 'identity not found', value: req.identityId } });
      }
      if (await store.hasMethod(req.identityId, req.method)) throw methodMax();
      const id = newId();
      await store.insert({ id, identityId: req.identityId, method: req.method as Authenticator['method'], tags: req.tags, ...(await newCredentials(req)) });
      return id;
    },

    async update(req: AuthenticatorChange): Promise<void> {
      const a = await get(req.id, req.ownerIdentityId);
      const credentials = req.mask.includes('username') || req.mask.includes('password');
      if (a.method !== 'updb' && (credentials || req.currentPassword !== undefined)) throw cannotUpdate('only username/password authenticators can change credentials');
      if (req.currentPassword !== undefined && !(await verifyPassword(req.currentPassword, a.passwordHash))) {
        throw new ZitiError('UNAUTHORIZED', { cause: { field: 'currentPassword', reason: 'invalid current password' } });
      }
      if (req.mask.includes('username') && !req.username) throw fieldError('username', 'must not be empty', req.username);
      if (req.mask.includes('password')) checkPassword(await policyOf(a.identityId), req.password);
      await store.update(a.id, {
        username: req.mask.includes('username') ? req.username : undefined,
        passwordHash: req.mask.includes('password') ? await hashPassword(req.password) : undefined,
        tags: req.mask.includes('tags') ? req.tags : undefined,
      });
    },

    /** Flags a certificate authenticator for early extension (403 for any other kind). */
    async requestExtend(id: string, rollKeys: boolean): Promise<void> {
      const a = await get(id);
      if (a.method !== 'cert') throw new ZitiError('FORBIDDEN', { causeMessage: 'only certificate authenticators can be extended' });
      await store.requestExtend(id, rollKeys);
    },

    /** Deletes one, ending the API sessions opened with it. */
    async delete(id: string): Promise<void> {
      if ((await remove([id])) === 0) throw notFound('authenticator', id);
    },

    /** Deletes the certificate authenticators a CA issued (the CA is gone); how many went. */
    async deleteIssuedBy(caPem: string): Promise<number> {
      const issued = (await store.listCertificates()).filter((a) => issuedBy(a.certPem, caPem));
      return remove(issued.map((a) => a.id));
    },
  };
}

export type Authenticators = ReturnType<typeof createAuthenticators>;

/**
 * Authenticators created when an enrollment completes (the pki service redeems the token and
 * asks for them): a client certificate from an ott enrollment, a username and password from a
 * updb enrollment (as OpenZiti's enrollment_mod_ott.go and enrollment_mod_updb.go).
 */
import { ZitiError, fieldError, notFound } from '@edge/errors';
import { newId } from '@edge/ids';
import type { AuthPolicies } from './auth-policies.js';
import { certInUse, fingerprintOf, leafCertificate } from './domain/certificate.js';
import { hashPassword, passwordRuleBreach } from './domain/password.js';
import type { Identities, IdentityInfo } from './peers/identity.js';
import type { NetworkIssuer } from './network-issuer.js';
import type { AuthStore } from './store/api-session.js';

/** What the operations work with. */
export interface EnrolledAuthenticatorDeps {
  store: AuthStore;
  identities: Identities;
  policies: AuthPolicies;
  issuedByNetwork: NetworkIssuer;
}

const alreadyEnrolled = (method: string) => new ZitiError('ENROLLMENT_IDENTITY_ALREADY_ENROLLED', { causeMessage: `the identity already has a ${method} authenticator` });

/** Creates the operations. */
export function createEnrolledAuthenticators(deps: EnrolledAuthenticatorDeps) {
  const { store, identities, policies, issuedByNetwork } = deps;

  async function identityWithout(identityId: string, method: 'cert' | 'updb'): Promise<IdentityInfo> {
    const identity = await identities.find(identityId);
    if (!identity) throw notFound('identity', identityId);
    const own = await store.authenticatorsOf([identityId]);
    if (own.some((a) => a.method === method)) throw alreadyEnrolled(method);
    return identity;
  }

  return {
    /**
     * The chain's leaf becomes a cert authenticator, extendable when the controller's CA issued
     * it (an ott enrollment, not an ottca one); CERT_IN_USE when its fingerprint is known.
     */
    async createCert(identityId: string, certPem: string): Promise<string> {
      const fingerprint = fingerprintOf(leafCertificate(certPem));
      await identityWithout(identityId, 'cert');
      if (await store.findCertByFingerprint(fingerprint)) throw certInUse();
      const id = newId();
      const outcome = await store.insertEnrolled({ id, identityId, method: 'cert', fingerprint, certPem, isIssuedByNetwork: await issuedByNetwork(certPem) });
      if (outcome === 'enrolled') throw alreadyEnrolled('cert');
      if (outcome === 'duplicate') throw certInUse();
      return id;
    },

    /** A username and password, the password kept to the identity's auth policy. */
    async createUpdb(identityId: string, username: string, password: string): Promise<string> {
      const identity = await identityWithout(identityId, 'updb');
      const policy = await policies.forIdentity(identity.authPolicyId);
      const breach = passwordRuleBreach(password, policy.primary.updb);
      if (breach) throw fieldError('password', breach);
      const id = newId();
      const outcome = await store.insertEnrolled({ id, identityId, method: 'updb', username, passwordHash: await hashPassword(password) });
      if (outcome === 'enrolled') throw alreadyEnrolled('updb');
      if (outcome === 'duplicate') throw fieldError('username', `duplicate value '${username}' in unique index on authenticators store`, username);
      return id;
    },
  };
}

export type EnrolledAuthenticators = ReturnType<typeof createEnrolledAuthenticators>;

/**
 * Redeeming enrollment tokens (OpenZiti's enrollment_mod_ott.go, enrollment_mod_updb.go,
 * enrollment_mod_erott.go, enrollment_mod_ottca.go): the token's enrollment is deleted and the credential it stood for
 * created in one step; if creating the credential fails, the token stays usable.
 */
import { ZitiError } from '@edge/errors';
import type { Cas } from './cas.js';
import { issueIdentityCertificate } from './client-certificates.js';
import type { ControllerPki } from './controller-pki.js';
import { certFailedValidation, checkOttCaUsable, issuedForClient, presentedChain } from './domain/ca-enrollment.js';
import { checkRedeemable, hashEnrollmentToken, invalidToken } from './domain/enrollment.js';
import type { EnrollmentStore, StoredEnrollment } from './enrollment-store.js';
import type { EnrollmentPeers } from './peers.js';
import { issueRouterCertificates } from './router-certificates.js';

/** A redemption with certificate signing requests, as the enroll endpoints pass it on. */
export interface CsrRedemption {
  /** The method the endpoint names; '' for the generic `/enroll` (the token's own method). */
  method: string;
  token: string;
  clientCsrPem: string;
  serverCsrPem: string;
}

/** enrollmentCerts: the client chain, a router's server chain, and the CA bundle to trust. */
export interface EnrollmentCerts {
  cert: string;
  serverCert: string;
  ca: string;
  method: string;
}

/** What redemption works with. */
export interface RedeemDeps {
  store: EnrollmentStore;
  pki: ControllerPki;
  peers: EnrollmentPeers;
  cas: Pick<Cas, 'find'>;
}

/** Creates the redeem operations. */
export function createRedeem(deps: RedeemDeps) {
  const { store, pki, peers } = deps;

  /** Runs `complete` on the token's enrollment, once, if it may be redeemed through `method`. */
  function redeem<T>(token: string, method: string, complete: (e: StoredEnrollment) => Promise<T>): Promise<T> {
    if (token.trim() === '') return Promise.reject(invalidToken());
    return store.redeem(hashEnrollmentToken(token.trim()), async (e) => {
      if (!e) throw invalidToken();
      checkRedeemable(e, method);
      return complete(e);
    });
  }

  /** ott: one client certificate, CN = the identity id, which becomes a cert authenticator. */
  async function identityCertificate(e: StoredEnrollment, r: CsrRedemption): Promise<EnrollmentCerts> {
    const { cert, ca } = await issueIdentityCertificate(pki, r.clientCsrPem, 'clientCsr', e.identityId!);
    await peers.createCertAuthenticator(e.identityId!, cert);
    return { cert, serverCert: '', ca, method: e.method };
  }

  return {
    /** Redeems an ott, erott or trott token with CSRs. */
    withCsr(r: CsrRedemption): Promise<EnrollmentCerts> {
      return redeem(r.token, r.method, async (e) => {
        if (e.method === 'ott') return identityCertificate(e, r);
        if (e.method === 'erott' || e.method === 'trott') {
          const csrs = { clientCsrPem: r.clientCsrPem, serverCsrPem: r.serverCsrPem, fields: { client: 'clientCsr', server: 'serverCsr' } };
          const kind = e.edgeRouterId ? 'edge' : 'transit';
          return { ...(await issueRouterCertificates(pki, peers, kind, (e.edgeRouterId ?? e.transitRouterId)!, csrs)), method: e.method };
        }
        // updb needs a password, ottca a CA-issued certificate: not this endpoint's methods
        throw new ZitiError('INVALID_ENROLL_METHOD', { causeMessage: `a ${e.method} enrollment cannot be completed with a CSR here` });
      });
    },

    /**
     * Redeems an ottca token with the client certificate presented at TLS: issued by the
     * enrollment's CA (still verified and enabled for ottca), it becomes a cert authenticator.
     */
    ottCa(token: string, chainPem: string): Promise<void> {
      return redeem(token, 'ottca', async (e) => {
        const ca = e.caId ? await deps.cas.find(e.caId) : undefined;
        if (!ca) throw invalidToken();
        checkOttCaUsable(ca);
        const chain = presentedChain(chainPem);
        if (!issuedForClient(ca, chain)) throw certFailedValidation();
        await peers.createCertAuthenticator(e.identityId!, chain[0]!.toString());
      });
    },

    /** Redeems a updb token: the enrollment's username with this password. */
    updb(token: string, password: string): Promise<void> {
      return redeem(token, 'updb', async (e) => {
        await peers.createUpdbAuthenticator(e.identityId!, e.username ?? '', password);
      });
    },
  };
}

export type Redeem = ReturnType<typeof createRedeem>;

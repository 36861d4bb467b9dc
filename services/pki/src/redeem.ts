/**
 * Redeeming enrollment tokens (OpenZiti's enrollment_mod_ott.go, enrollment_mod_updb.go,
 * enrollment_mod_erott.go, enrollment_mod_ottca.go): the token's enrollment is claimed (deleted, so
 * one redemption wins), then the credential it stood for is created by the service that owns it;
 * if that fails, the enrollment is put back and the token stays usable. No transaction is open
 * across the remote call (ARCHITECTURE.md rule 7): on the embedded database it would hold the one
 * session the called service needs too.
 */
import { ZitiError, isZitiError } from '@edge/errors';
import type { Logger } from '@edge/logging';
import type { Cas } from './cas.js';
import { issueIdentityCertificate } from './client-certificates.js';
import type { ControllerPki } from './controller-pki.js';
import { certFailedValidation, checkOttCaUsable, issuedForClient, presentedChain } from './domain/ca-enrollment.js';
import { checkRedeemable, hashEnrollmentToken, invalidToken } from './domain/enrollment.js';
import type { EnrollmentStore, StoredEnrollment } from './store/enrollment.js';
import type { EnrollmentPeers } from './peers/index.js';
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
  log: Logger;
}

/** The owner of the enrollment went while it was redeemed: there is nothing to put back. */
const ownerGone = (err: unknown) => isZitiError(err) && err.code === 'NOT_FOUND';

/** Creates the redeem operations. */
export function createRedeem(deps: RedeemDeps) {
  const { store, pki, peers } = deps;

  /** Runs `complete` on the token's enrollment, once, if it may be redeemed through `method`. */
  async function redeem<T>(token: string, method: string, complete: (e: StoredEnrollment) => Promise<T>): Promise<T> {
    if (token.trim() === '') throw invalidToken();
    const e = await store.claim(hashEnrollmentToken(token.trim()));
    if (!e) throw invalidToken();
    try {
      checkRedeemable(e, method);
      return await complete(e);
    } catch (err) {
      if (!ownerGone(err)) await putBack(e);
      throw err;
    }
  }

  /** Compensates a failed redemption; the caller's error is what the client needs to see. */
  async function putBack(e: StoredEnrollment): Promise<void> {
    try {
      if (!(await store.restore(e))) deps.log.info({ enrollmentId: e.id }, 'a failed redemption was not put back: a newer enrollment took its place');
    } catch (err) {
      deps.log.error({ err, enrollmentId: e.id }, 'could not put back the enrollment of a failed redemption; its token is spent');
    }
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

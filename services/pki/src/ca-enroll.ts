/**
 * Enrollment with a certificate a CA issued, presented at TLS: ottca (a token of the identity
 * redeemed in redeem.ts) and CA auto-enrollment, which creates the identity itself (as OpenZiti's
 * enrollment_mod_ca.go).
 */
import { ZitiError, isZitiError } from '@edge/errors';
import { newId } from '@edge/ids';
import type { PkiServiceHandlers } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import type { Cas } from './cas.js';
import { certificateNames, externalIdOf, type Ca } from './domain/ca.js';
import { certFailedValidation, identityName, issuedForClient, nameWithSuffix, presentedChain } from './domain/ca-enrollment.js';
import type { EnrollmentPeers } from './peers/index.js';
import type { Redeem } from './redeem.js';

/** How many taken names an auto-enrollment tries before giving up. */
const NAME_ATTEMPTS = 100;

/** The identity service's answer for a name already in use (and only that: other name errors stop). */
const nameTaken = (err: unknown) => {
  const cause = isZitiError(err) && err.code === 'COULD_NOT_VALIDATE' ? (err.fieldCause as { field?: string; reason?: string } | undefined) : undefined;
  return cause?.field === 'name' && /^duplicate value/.test(cause.reason ?? '');
};

/** Creates the CA auto-enrollment operation. */
export function createCaAutoEnrollment(cas: Pick<Cas, 'autoEnrollmentCas'>, peers: EnrollmentPeers) {
  /** Creates the identity under the first free name of `name`, `name000001`, … */
  async function createNamed(ca: Ca, id: string, name: string, externalId: string | null): Promise<void> {
    for (let n = 0; ; n++) {
      try {
        await peers.createIdentity({ id, name: n === 0 ? name : nameWithSuffix(name, n), roleAttributes: ca.identityRoles, externalId });
        return;
      } catch (err) {
        if (!nameTaken(err) || n >= NAME_ATTEMPTS) throw err;
      }
    }
  }

  /**
   * A verified CA enabled for auto-enrollment must have issued the presented certificate. With
   * an externalIdClaim the identity gets the externalId it reads (and logs in through it);
   * otherwise the certificate becomes its cert authenticator (CERT_IN_USE if known already).
   */
  return async function enroll(chainPem: string, requestedName: string): Promise<void> {
    const chain = presentedChain(chainPem);
    if (chain.length === 0) throw certFailedValidation();
    const candidates = await cas.autoEnrollmentCas();
    if (candidates.length === 0) throw new ZitiError('ENROLLMENT_NO_VALID_CAS');
    const ca = candidates.find((c) => issuedForClient(c, chain));
    if (!ca) throw certFailedValidation();
    const leaf = chain[0]!;
    const externalId = ca.externalIdClaim ? externalIdOf(ca.externalIdClaim, certificateNames(leaf)) : '';
    const id = newId();
    await createNamed(ca, id, identityName({ ca, leaf, requestedName, identityId: id }), externalId || null);
    if (externalId) return;
    try {
      await peers.createCertAuthenticator(id, leaf.toString());
    } catch (err) {
      await peers.deleteIdentity(id).catch(() => undefined);
      throw err;
    }
  };
}

/** The EnrollWithCaCertificate handler: method ottca (with its token) or ca. */
export function createCaEnrollmentHandlers(redeem: Redeem, autoEnroll: ReturnType<typeof createCaAutoEnrollment>): Pick<AsyncHandlers<PkiServiceHandlers>, 'EnrollWithCaCertificate'> {
  return {
    async EnrollWithCaCertificate(req) {
      if (req.method === 'ottca') await redeem.ottCa(req.token, req.certChainPem);
      else if (req.method === 'ca') await autoEnroll(req.certChainPem, req.requestedName);
      else throw new ZitiError('INVALID_ENROLL_METHOD', { causeMessage: `${req.method} is not an enrollment with a CA certificate` });
      return { cert: '', serverCert: '', ca: '', method: req.method };
    },
  };
}

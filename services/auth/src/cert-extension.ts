/**
 * Extending the caller's own certificate authenticator (OpenZiti's ExtendCertForIdentity and
 * VerifyExtendCertForIdentity): presenting the current certificate at TLS, the holder sends a CSR
 * and gets a new certificate from the pki service, which stays pending, while the current one
 * keeps working, until the holder sends it back (extend-verify).
 */
import { ZitiError, notFound } from '@edge/errors';
import type { AuthServiceHandlers } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import type { AuthenticatorStore } from './store/authenticator.js';
import { fingerprintOf, leafCertificate } from './domain/certificate.js';
import type { Authenticator } from './domain/authenticator.js';

/** Issues the new certificate: the pki service's ExtendClientCertificate. */
export type ExtendCertificate = (currentCertPem: string, csrPem: string) => Promise<{ clientCert: string; ca: string }>;

const cannotUpdate = (why: string) => new ZitiError('CAN_NOT_UPDATE_AUTHENTICATOR', { causeMessage: why });
const invalidClientCert = () => new ZitiError('INVALID_CLIENT_CERT');

/** The fingerprint of the one certificate in `pem`, or undefined when there is not exactly one. */
function singleFingerprint(pem: string): string | undefined {
  if ((pem.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length !== 1) return undefined;
  try {
    return fingerprintOf(leafCertificate(pem));
  } catch {
    return undefined;
  }
}

/** Creates the operations. */
export function createCertExtension(store: AuthenticatorStore, extendCertificate: ExtendCertificate) {
  /** The identity's own cert authenticator (as authenticator_manager.go: 404, 401, 409). */
  async function ownCert(identityId: string, id: string): Promise<Authenticator & { certPem: string; fingerprint: string }> {
    const a = await store.find(id);
    if (!a) throw notFound('authenticator', id);
    if (a.identityId !== identityId) throw new ZitiError('UNAUTHORIZED');
    if (a.method !== 'cert' || !a.certPem || !a.fingerprint) throw cannotUpdate('only certificate authenticators can be extended');
    return a as Authenticator & { certPem: string; fingerprint: string };
  }

  return {
    /** A pending certificate for the CSR; the caller must present the authenticator's certificate. */
    async extend(identityId: string, id: string, presentedPem: string, csrPem: string): Promise<{ clientCert: string; ca: string }> {
      const a = await ownCert(identityId, id);
      if (presentedPem === '' || singleFingerprint(presentedPem) !== a.fingerprint) throw new ZitiError('UNAUTHORIZED');
      const issued = await extendCertificate(a.certPem, csrPem);
      await store.setPendingCertificate(id, issued.clientCert, fingerprintOf(leafCertificate(issued.clientCert)));
      return issued;
    },

    /** Makes the pending certificate current when `certPem` is exactly it. */
    async verify(identityId: string, id: string, certPem: string): Promise<void> {
      await ownCert(identityId, id);
      const pending = await store.pendingCertificate(id);
      if (!pending) throw cannotUpdate('no extension is pending');
      const fingerprint = singleFingerprint(certPem);
      if (fingerprint !== pending.fingerprint) throw invalidClientCert();
      if (!(await store.promotePendingCertificate(id, fingerprint))) throw invalidClientCert();
    },
  };
}

export type CertExtension = ReturnType<typeof createCertExtension>;

/** The ExtendCertAuthenticator and VerifyExtendCertAuthenticator handlers. */
export function createCertExtensionHandlers(ext: CertExtension): Pick<AsyncHandlers<AuthServiceHandlers>, 'ExtendCertAuthenticator' | 'VerifyExtendCertAuthenticator'> {
  return {
    async ExtendCertAuthenticator(req) {
      return ext.extend(req.identityId, req.id, req.clientCertPem, req.csrPem);
    },
    async VerifyExtendCertAuthenticator(req) {
      await ext.verify(req.identityId, req.id, req.clientCertPem);
      return {};
    },
  };
}

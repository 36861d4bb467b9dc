/**
 * Extending a client certificate the controller issued (OpenZiti's
 * AuthenticatorManager.ExtendCertForIdentity): a new certificate for the CSR's key, keeping the
 * current certificate's subject. The auth service decides whose certificate may be extended.
 */
import { X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { ZitiError } from '@edge/errors';
import type { PkiServiceHandlers } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import type { ControllerPki } from './controller-pki.js';
import { chainsTo, pemCertificates } from './domain/ca.js';
import { issueFromCsr, parseCsr } from './domain/csr.js';

/** The current certificate, issued by the controller's signing CA; CAN_NOT_UPDATE_AUTHENTICATOR otherwise. */
function issuedHere(currentPem: string, intermediatePem: string): X509Certificate {
  let current: X509Certificate | undefined;
  try {
    current = pemCertificates(currentPem)[0];
  } catch {
    current = undefined;
  }
  if (!current || !chainsTo([current], new X509Certificate(intermediatePem))) {
    throw new ZitiError('CAN_NOT_UPDATE_AUTHENTICATOR', { causeMessage: 'only certificates the controller issued can be extended' });
  }
  return current;
}

/** The ExtendClientCertificate handler. */
export function createCertExtensionHandlers(pki: ControllerPki): Pick<AsyncHandlers<PkiServiceHandlers>, 'ExtendClientCertificate'> {
  return {
    async ExtendClientCertificate(req) {
      const signers = await pki.enrollmentSigners();
      const current = issuedHere(req.currentCertPem, signers.intermediate.certPem);
      const csr = await parseCsr(req.csrPem, 'clientCertCsr');
      const clientCert = await issueFromCsr(signers.intermediate, csr, 'client', new x509.X509Certificate(current.raw).subjectName);
      return { clientCert, ca: signers.caBundlePem };
    },
  };
}

/**
 * Client certificates issued outside enrollment, for the auth service, which decides who gets
 * them: extending one the controller issued (OpenZiti's AuthenticatorManager.ExtendCertForIdentity:
 * a new certificate for the CSR's key with the current certificate's subject) and short-lived API
 * session certificates (ApiSessionCertificateManager.CreateFromCSR: the CSR's subject).
 */
import { X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { ZitiError, fieldError } from '@edge/errors';
import type { PkiServiceHandlers } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import type { ControllerPki } from './controller-pki.js';
import { chainsTo, pemCertificates } from './domain/ca.js';
import { joinPem } from './domain/ca-certs.js';
import { issueFromCsr, parseCsr } from './domain/csr.js';

/**
 * An identity's client certificate for a CSR (field `field` of the request): CN = the identity
 * id, one year, as chain (leaf, signing CA) with the CA bundle to trust.
 */
export async function issueIdentityCertificate(pki: ControllerPki, csrPem: string, field: string, identityId: string): Promise<{ cert: string; ca: string }> {
  const csr = await parseCsr(csrPem, field);
  const signers = await pki.enrollmentSigners();
  const leaf = await issueFromCsr(signers.intermediate, csr, 'client', `CN=${identityId}`);
  return { cert: joinPem([leaf, signers.intermediate.certPem]), ca: signers.caBundlePem };
}

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

/** The ExtendClientCertificate and IssueSessionCertificate handlers. */
export function createClientCertificateHandlers(pki: ControllerPki): Pick<AsyncHandlers<PkiServiceHandlers>, 'ExtendClientCertificate' | 'IssueSessionCertificate' | 'IssueIdentityCertificate'> {
  return {
    async ExtendClientCertificate(req) {
      const signers = await pki.enrollmentSigners();
      const current = issuedHere(req.currentCertPem, signers.intermediate.certPem);
      const csr = await parseCsr(req.csrPem, 'clientCertCsr');
      const clientCert = await issueFromCsr(signers.intermediate, csr, 'client', new x509.X509Certificate(current.raw).subjectName);
      return { clientCert, ca: signers.caBundlePem };
    },
    async IssueIdentityCertificate(req) {
      const { cert, ca } = await issueIdentityCertificate(pki, req.csrPem, req.csrField || 'clientCsr', req.identityId);
      return { cert, ca, serverCert: '', method: '' };
    },
    async IssueSessionCertificate(req) {
      const csr = await parseCsr(req.csrPem, 'csr');
      if (!req.validSeconds) throw fieldError('validSeconds', 'must be positive', 0);
      const signers = await pki.enrollmentSigners();
      const clientCert = await issueFromCsr(signers.intermediate, csr, 'client', undefined, req.validSeconds * 1000);
      return { clientCert, ca: signers.caBundlePem };
    },
  };
}

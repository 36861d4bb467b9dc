/**
 * Rules over the controller's stored chain: when the server certificate must be re-issued and
 * what the listener and the EST endpoint are given.
 */
import { caCertsPkcs7Base64, joinPem } from './ca-certs.js';
import { expiresWithin, type CertificateKind } from './certificates.js';
import { coversNames, type SubjectAltNames } from './server-hosts.js';

/** Re-issue the server certificate this long before it expires. */
export const SERVER_RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;

/** The parts of a stored certificate the rules look at. */
export interface CertificateFacts {
  kind: CertificateKind;
  certPem: string;
  notAfter: Date;
  sans: string[];
}

/** The root, intermediate and server certificate, each with its decrypted PKCS#8 key. */
export interface ControllerChain {
  rootCa: CertificateFacts & { keyPem: string };
  intermediateCa: CertificateFacts & { keyPem: string };
  server: CertificateFacts & { keyPem: string };
}

/** What the HTTPS listener serves: leaf-first chain, its key, and the CAs client certs may chain to. */
export interface ServerTls {
  certChainPem: string;
  keyPem: string;
  caBundlePem: string;
}

/** The CA chain for `/.well-known/est/cacerts`: base64 DER PKCS#7 and the same as PEM. */
export interface CaCerts {
  pkcs7Base64: string;
  pem: string;
}

/**
 * Why the server certificate must be (re-)issued, or undefined when the stored one will do:
 * missing, not naming every configured host, or expiring within 30 days.
 */
export function serverCertificateIssue(
  stored: Pick<CertificateFacts, 'notAfter' | 'sans'> | undefined,
  required: SubjectAltNames,
  now = new Date(),
): 'missing' | 'hosts-changed' | 'expiring' | undefined {
  if (!stored) return 'missing';
  if (!coversNames(stored.sans, required)) return 'hosts-changed';
  if (expiresWithin(stored.notAfter, SERVER_RENEW_BEFORE_MS, now)) return 'expiring';
  return undefined;
}

/** The listener's TLS material: the root stays out of the served chain, clients hold it. */
export function serverTls(chain: ControllerChain): ServerTls {
  return {
    certChainPem: joinPem([chain.server.certPem, chain.intermediateCa.certPem]),
    keyPem: chain.server.keyPem,
    caBundlePem: joinPem([chain.intermediateCa.certPem, chain.rootCa.certPem]),
  };
}

/** The EST cacerts answer: intermediate then root. */
export function caCerts(chain: Pick<ControllerChain, 'rootCa' | 'intermediateCa'>): CaCerts {
  const pems = [chain.intermediateCa.certPem, chain.rootCa.certPem];
  return { pkcs7Base64: caCertsPkcs7Base64(pems), pem: joinPem(pems) };
}

/**
 * The internal service CA and the certificates it issues to the controller's own processes for
 * mutual TLS between them (EDGE_GRPC_TLS=mtls). A root of its own, never part of the chain
 * identities and routers trust or are issued from: a service certificate opens no API session,
 * and an identity's certificate opens no service port.
 */
import * as x509 from '@peculiar/x509';
import { createSelfSignedCa, validity, type IssuedCertificate, type Signer } from './certificates.js';
import type { ParsedCsr } from './csr.js';
import { nodeCrypto, randomSerialNumber, SIGNING_ALGORITHM } from './keys.js';

export const SERVICE_CA_SUBJECT = 'O=Edge Controller, CN=Edge Controller Internal Service CA';

/**
 * Lifetime of a service certificate. Processes renew theirs after two thirds of it (20 days),
 * so a pki outage of up to ten days costs nothing.
 */
export const SERVICE_CERTIFICATE_LIFETIME_MS = 30 * 24 * 3600 * 1000;

/** The names processes join under: lower-case words such as auth, pki, gateway. */
const PROCESS_NAME = /^[a-z][a-z0-9-]{0,30}$/;

/** True when `name` may be a process's name in its certificate. */
export function isProcessName(name: string): boolean {
  return PROCESS_NAME.test(name);
}

/** Creates the service CA: self-signed, signs leaves only. */
export function createServiceCa(now = new Date()): Promise<IssuedCertificate> {
  return createSelfSignedCa({ kind: 'service-ca', subject: SERVICE_CA_SUBJECT, pathLength: 0 }, now);
}

/**
 * Issues the certificate of process `name` for the CSR's key: CN = name, the DNS name
 * `dnsName` (what peers check), usable as server and as client.
 */
export async function issueServiceCertificate(ca: Signer, csr: ParsedCsr, name: string, dnsName: string, now = new Date()): Promise<string> {
  const crypto = nodeCrypto();
  const issuer = new x509.X509Certificate(ca.certPem);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: `O=Edge Controller, CN=${name}`,
    issuer: issuer.subject,
    ...validity(now, SERVICE_CERTIFICATE_LIFETIME_MS, issuer.notAfter),
    signingAlgorithm: SIGNING_ALGORITHM,
    publicKey: csr.request.publicKey,
    signingKey: ca.key,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth], false),
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: dnsName }], false),
      await x509.AuthorityKeyIdentifierExtension.create(issuer, false, crypto),
    ],
  }, crypto);
  return cert.toString('pem');
}

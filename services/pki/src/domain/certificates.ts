/**
 * The controller's certificate chain: a self-signed root CA, an intermediate signing CA under
 * it, and the HTTPS server certificate issued by the intermediate. All ECDSA P-256.
 */
import type { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { exportPrivateKeyPem, generateKeyPair, nodeCrypto, randomSerialNumber, SIGNING_ALGORITHM } from './keys.js';
import type { SubjectAltNames } from './server-hosts.js';

/**
 * The certificates the controller owns, by their stored kind: its chain (root, intermediate,
 * HTTPS server) and the internal service CA (domain/service-ca.ts).
 */
export type CertificateKind = 'root-ca' | 'intermediate-ca' | 'server' | 'service-ca';

/** A certificate with its private key, both PEM; the key is PKCS#8 and never leaves unencrypted except over gRPC. */
export interface IssuedCertificate {
  kind: CertificateKind;
  certPem: string;
  keyPem: string;
  serialNumber: string;
  subject: string;
  notBefore: Date;
  notAfter: Date;
  /** Subject alternative names (server certificate only), DNS names first. */
  sans: string[];
}

/** An issuer: its certificate and the private key that signs with it. */
export interface Signer {
  certPem: string;
  key: webcrypto.CryptoKey;
}

const YEAR_MS = 365 * 24 * 3600 * 1000;
/** Backdating tolerates clock skew between the controller and its clients. */
const BACKDATE_MS = 5 * 60 * 1000;

/** Lifetimes, as OpenZiti's quickstart PKI: long-lived root, shorter signer, yearly server cert. */
export const LIFETIMES = { rootCa: 10 * YEAR_MS, intermediateCa: 5 * YEAR_MS, server: YEAR_MS } as const;

/**
 * Names of the subjects; the server certificate's CN is its first DNS name. Written in DER
 * order (@peculiar/x509 does not reverse RFC 4514 strings), so O comes before CN.
 */
export const SUBJECTS = {
  rootCa: 'O=Edge Controller, CN=Edge Controller Root CA',
  intermediateCa: 'O=Edge Controller, CN=Edge Controller Signing CA',
} as const;

/** Creates the self-signed root CA (CA, keyCertSign + cRLSign, subject key id). */
export async function createRootCa(now = new Date()): Promise<IssuedCertificate> {
  return createSelfSignedCa({ kind: 'root-ca', subject: SUBJECTS.rootCa }, now);
}

/** A self-signed CA of `kind`; `pathLength` 0 makes it sign leaves only. */
export async function createSelfSignedCa(ca: { kind: CertificateKind; subject: string; pathLength?: number }, now = new Date()): Promise<IssuedCertificate> {
  const crypto = nodeCrypto();
  const keys = await generateKeyPair();
  const { notBefore, notAfter } = validity(now, LIFETIMES.rootCa);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerialNumber(),
    name: ca.subject,
    notBefore,
    notAfter,
    signingAlgorithm: SIGNING_ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, ca.pathLength, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
    ],
  }, crypto);
  return issued(ca.kind, cert, await exportPrivateKeyPem(keys.privateKey), []);
}

/** Creates the intermediate signing CA under `root` (CA with pathLen 0: it signs only leaves). */
export async function createIntermediateCa(root: Signer, now = new Date()): Promise<IssuedCertificate> {
  const crypto = nodeCrypto();
  const keys = await generateKeyPair();
  const issuer = new x509.X509Certificate(root.certPem);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: SUBJECTS.intermediateCa,
    issuer: issuer.subject,
    ...validity(now, LIFETIMES.intermediateCa, issuer.notAfter),
    signingAlgorithm: SIGNING_ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: root.key,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      await x509.AuthorityKeyIdentifierExtension.create(issuer, false, crypto),
    ],
  }, crypto);
  return issued('intermediate-ca', cert, await exportPrivateKeyPem(keys.privateKey), []);
}

/**
 * Creates the HTTPS server certificate under the intermediate, valid for `names`. Its key also
 * signs enrollment JWTs, which SDKs verify against the certificate the listener presents.
 */
export async function createServerCertificate(
  intermediate: Signer,
  names: SubjectAltNames,
  now = new Date(),
): Promise<IssuedCertificate> {
  const crypto = nodeCrypto();
  const keys = await generateKeyPair();
  const issuer = new x509.X509Certificate(intermediate.certPem);
  const sans = [...names.dns.map((value) => ({ type: 'dns' as const, value })), ...names.ips.map((value) => ({ type: 'ip' as const, value }))];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: `O=Edge Controller, CN=${names.dns[0] ?? names.ips[0] ?? 'localhost'}`,
    issuer: issuer.subject,
    // Never outlive the issuer: a chain is only valid while every link is.
    ...validity(now, LIFETIMES.server, issuer.notAfter),
    signingAlgorithm: SIGNING_ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: intermediate.key,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth], false),
      new x509.SubjectAlternativeNameExtension(sans, false),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      await x509.AuthorityKeyIdentifierExtension.create(issuer, false, crypto),
    ],
  }, crypto);
  return issued('server', cert, await exportPrivateKeyPem(keys.privateKey), [...names.dns, ...names.ips]);
}

/** True when `notAfter` falls within `withinMs` of `now` (or has passed). */
export function expiresWithin(notAfter: Date, withinMs: number, now = new Date()): boolean {
  return notAfter.getTime() - now.getTime() <= withinMs;
}

/** notBefore backdated for clock skew; notAfter after `lifetimeMs`, never past the issuer's. */
export function validity(now: Date, lifetimeMs: number, issuerNotAfter?: Date): { notBefore: Date; notAfter: Date } {
  const notAfter = new Date(now.getTime() + lifetimeMs);
  return {
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: issuerNotAfter && issuerNotAfter < notAfter ? issuerNotAfter : notAfter,
  };
}

function issued(kind: CertificateKind, cert: x509.X509Certificate, keyPem: string, sans: string[]): IssuedCertificate {
  return {
    kind,
    certPem: cert.toString('pem'),
    keyPem,
    serialNumber: cert.serialNumber,
    subject: cert.subject,
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    sans,
  };
}

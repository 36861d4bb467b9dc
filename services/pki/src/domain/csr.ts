/**
 * Certificate signing requests redeemed at enrollment, and the certificates issued for them by
 * the controller's intermediate CA (as common/cert ClientSigner/ServerSigner in OpenZiti: one
 * year, digitalSignature + keyEncipherment + dataEncipherment, clientAuth or serverAuth).
 */
import { createPublicKey } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { ZitiError } from '@edge/errors';
import { LIFETIMES, type Signer } from './certificates.js';
import { nodeCrypto, randomSerialNumber, SIGNING_ALGORITHM } from './keys.js';

/** A CSR whose signature verified and whose key is acceptable. */
export interface ParsedCsr {
  request: x509.Pkcs10CertificateRequest;
  /** The subject's common name, or '' when it has none. */
  commonName: string;
}

const MIN_RSA_BITS = 2048;
const ACCEPTED_CURVES = new Set(['prime256v1', 'secp384r1']);
/** Clock skew tolerance, as OpenZiti's signers backdate by a minute. */
const BACKDATE_MS = 60_000;

/** The error for a CSR that is missing, unreadable, badly signed or has an unaccepted key. */
export function invalidCsr(field: string, reason: string): ZitiError {
  return new ZitiError('MISSING_OR_INVALID_CSR', { cause: { field, reason }, causeMessage: `${field}: ${reason}` });
}

/**
 * Parses a PEM CSR (exactly one block, as cert.ParseCsrPem requires) and checks its signature
 * and key: RSA of at least 2048 bits, or ECDSA P-256 / P-384.
 */
export async function parseCsr(pem: string, field: string): Promise<ParsedCsr> {
  const text = pem.trim();
  if (text === '') throw invalidCsr(field, 'is missing');
  let request: x509.Pkcs10CertificateRequest;
  try {
    const blocks = x509.PemConverter.decodeWithHeaders(text);
    if (blocks.length !== 1 || !/CERTIFICATE REQUEST$/.test(blocks[0]!.type)) throw new Error('not one PEM certificate request');
    request = new x509.Pkcs10CertificateRequest(blocks[0]!.rawData);
  } catch {
    throw invalidCsr(field, 'is not a PEM certificate signing request');
  }
  checkKey(request, field);
  let verified = false;
  try {
    verified = await request.verify(nodeCrypto());
  } catch {
    verified = false;
  }
  if (!verified) throw invalidCsr(field, 'signature does not verify');
  return { request, commonName: commonNameOf(request.subjectName) };
}

function checkKey(request: x509.Pkcs10CertificateRequest, field: string): void {
  let key;
  try {
    key = createPublicKey({ key: Buffer.from(request.publicKey.rawData), format: 'der', type: 'spki' });
  } catch {
    throw invalidCsr(field, 'has an unreadable public key');
  }
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa' && (details.modulusLength ?? 0) >= MIN_RSA_BITS) return;
  if (key.asymmetricKeyType === 'ec' && ACCEPTED_CURVES.has(details.namedCurve ?? '')) return;
  throw invalidCsr(field, `key must be RSA of at least ${MIN_RSA_BITS} bits or ECDSA P-256/P-384`);
}

function commonNameOf(name: x509.Name): string {
  return name.getField('CN')[0] ?? '';
}

/** What to issue: a client certificate (identity or router client) or a router's server certificate. */
export type IssuedUsage = 'client' | 'server';

/**
 * Issues a certificate for the CSR's key under `issuer`. `subject` replaces the CSR's subject
 * (identities get CN = their id); a server certificate carries the DNS names and IP addresses
 * the CSR asks for, while URIs are never copied, so no one mints a SPIFFE id for themselves.
 * Certificates last a year unless `lifetimeMs` says otherwise.
 */
export async function issueFromCsr(
  issuer: Signer, csr: ParsedCsr, usage: IssuedUsage, subject?: string | x509.Name, lifetimeMs: number = LIFETIMES.server, now = new Date(),
): Promise<string> {
  const crypto = nodeCrypto();
  const issuerCert = new x509.X509Certificate(issuer.certPem);
  const notAfter = new Date(now.getTime() + lifetimeMs);
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.dataEncipherment, true),
    new x509.ExtendedKeyUsageExtension([usage === 'client' ? x509.ExtendedKeyUsage.clientAuth : x509.ExtendedKeyUsage.serverAuth], false),
    await x509.AuthorityKeyIdentifierExtension.create(issuerCert, false, crypto),
  ];
  const sans = usage === 'server' ? requestedNames(csr.request) : [];
  if (sans.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(sans, false));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: subject ?? csr.request.subjectName,
    issuer: issuerCert.subjectName,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    // A chain is only valid while every link is.
    notAfter: issuerCert.notAfter < notAfter ? issuerCert.notAfter : notAfter,
    signingAlgorithm: SIGNING_ALGORITHM,
    publicKey: csr.request.publicKey,
    signingKey: issuer.key,
    extensions,
  }, crypto);
  return cert.toString('pem');
}

/** DNS names, IP addresses and e-mail addresses a CSR requests in its SAN extension. */
function requestedNames(request: x509.Pkcs10CertificateRequest): x509.JsonGeneralName[] {
  const raw = request.extensions.find((e) => e.type === x509.SubjectAlternativeNameExtension.NAME || e.type === '2.5.29.17');
  if (!raw) return [];
  return new x509.SubjectAlternativeNameExtension(raw.rawData).names.toJSON().filter((n) => n.type === 'dns' || n.type === 'ip' || n.type === 'email');
}

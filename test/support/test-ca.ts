/**
 * A certificate authority made in a test (WebCrypto + @peculiar/x509), standing in for a
 * third-party CA: its certificate, and client certificates it signs.
 */
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 60 * 60 * 1000;

export interface TestCa {
  certPem: string;
  keys: webcrypto.CryptoKeyPair;
  cert: x509.X509Certificate;
}

export interface IssuedCert {
  certPem: string;
  keyPem: string;
}

const serial = () => Buffer.from(webcrypto.getRandomValues(new Uint8Array(8))).toString('hex').replace(/^[89a-f]/, '1');

/** A self-signed CA certificate with CN `name`. */
export async function createTestCa(name: string): Promise<TestCa> {
  x509.cryptoProvider.set(webcrypto);
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(), name: `CN=${name}`, notBefore: new Date(Date.now() - DAY), notAfter: new Date(Date.now() + 30 * DAY), keys, signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keys, cert };
}

/** A client certificate signed by `ca` for a new key, with CN `cn` and optional SAN URIs / e-mails. */
export async function issueClientCert(ca: TestCa, cn: string, san: { uris?: string[]; emails?: string[] } = {}): Promise<IssuedCert> {
  x509.cryptoProvider.set(webcrypto);
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']) as webcrypto.CryptoKeyPair;
  const names = [...(san.uris ?? []).map((value) => ({ type: 'url' as const, value })), ...(san.emails ?? []).map((value) => ({ type: 'email' as const, value }))];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(), subject: `CN=${cn}`, issuer: ca.cert.subject, notBefore: new Date(Date.now() - DAY), notAfter: new Date(Date.now() + 10 * DAY),
    signingAlgorithm: ALG, publicKey: keys.publicKey, signingKey: ca.keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth], false),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert, false),
      ...(names.length ? [new x509.SubjectAlternativeNameExtension(names, false)] : []),
    ],
  });
  const keyPem = x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
  return { certPem: cert.toString('pem'), keyPem };
}

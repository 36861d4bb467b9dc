/**
 * Certificate signing requests made in a test with WebCrypto and @peculiar/x509, as an SDK makes them.
 */
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

export type KeyKind = 'P-256' | 'P-384' | 'RSA';

/** A key pair and a PEM CSR for it. */
export async function makeCsr(cn: string, kind: KeyKind = 'P-256'): Promise<{ csrPem: string; keyPem: string }> {
  x509.cryptoProvider.set(webcrypto);
  const alg = kind === 'RSA'
    ? { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }
    : { name: 'ECDSA', namedCurve: kind, hash: kind === 'P-384' ? 'SHA-384' : 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']) as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: `CN=${cn}`, keys, signingAlgorithm: alg });
  const keyPem = x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
  return { csrPem: csr.toString('pem'), keyPem };
}

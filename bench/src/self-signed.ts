/**
 * A throwaway self-signed P-256 certificate for 127.0.0.1, for the benchmark's own HTTPS servers.
 */
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/** A self-signed certificate (its own CA) and its PKCS#8 key, both PEM. */
export async function selfSigned(commonName: string): Promise<{ cert: string; key: string }> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01', name: `CN=${commonName}`, keys, signingAlgorithm: alg,
    notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000),
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }])],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { cert: cert.toString('pem'), key: `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n` };
}

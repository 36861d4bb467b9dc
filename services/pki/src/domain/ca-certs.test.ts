import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { caCertsPkcs7Base64 } from './ca-certs.js';
import { createIntermediateCa, createRootCa } from './certificates.js';
import { importPrivateKeyPem } from './keys.js';

describe('EST cacerts PKCS#7', () => {
  it('lists the intermediate and the root under openssl pkcs7 -print_certs', async () => {
    const root = await createRootCa();
    const inter = await createIntermediateCa({ certPem: root.certPem, key: await importPrivateKeyPem(root.keyPem) });
    const body = caCertsPkcs7Base64([inter.certPem, root.certPem]);
    expect(body).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const printed = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-print_certs'], { input: Buffer.from(body, 'base64'), encoding: 'utf8' });
    const pems = printed.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    expect(pems).toHaveLength(2);
    expect(new X509Certificate(pems[0]!).fingerprint256).toBe(new X509Certificate(inter.certPem).fingerprint256);
    expect(new X509Certificate(pems[1]!).fingerprint256).toBe(new X509Certificate(root.certPem).fingerprint256);
    expect(printed).toContain('subject=O = Edge Controller, CN = Edge Controller Signing CA');
  });

  it('is a certs-only SignedData with no signers and no content', () => {
    const der = Buffer.from(caCertsPkcs7Base64([]), 'base64');
    const text = execFileSync('openssl', ['asn1parse', '-inform', 'DER'], { input: der, encoding: 'utf8' });
    expect(text).toContain('pkcs7-signedData');
    expect(text).toContain('pkcs7-data');
    expect(text).not.toContain('OCTET STRING');
  });
});

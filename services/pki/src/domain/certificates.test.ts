import { execFileSync } from 'node:child_process';
import { X509Certificate as NodeX509, createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntermediateCa, createRootCa, createServerCertificate, type IssuedCertificate } from './certificates.js';
import { importPrivateKeyPem } from './keys.js';
import { requiredServerNames } from './server-hosts.js';

const names = requiredServerNames({ addr: '0.0.0.0:1280', advertisedAddress: 'ctrl.example.com:1280', tlsSans: ['10.1.2.3', 'alt.example.com'] });
let root: IssuedCertificate;
let inter: IssuedCertificate;
let server: IssuedCertificate;
let dir: string;

beforeAll(async () => {
  root = await createRootCa();
  inter = await createIntermediateCa({ certPem: root.certPem, key: await importPrivateKeyPem(root.keyPem) });
  server = await createServerCertificate({ certPem: inter.certPem, key: await importPrivateKeyPem(inter.keyPem) }, names);
  dir = mkdtempSync(join(tmpdir(), 'pki-certs-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ext = <T extends x509.Extension>(pem: string, type: new (raw: ArrayBuffer | ArrayBufferView) => T) => new x509.X509Certificate(pem).getExtension(type);

describe('controller certificates', () => {
  it('chains server → intermediate → root by signature and issuer', () => {
    const [r, i, s] = [root, inter, server].map((c) => new NodeX509(c.certPem));
    expect(r!.verify(r!.publicKey)).toBe(true);
    expect(i!.verify(r!.publicKey)).toBe(true);
    expect(s!.verify(i!.publicKey)).toBe(true);
    expect(s!.checkIssued(i!)).toBe(true);
    expect(i!.checkIssued(r!)).toBe(true);
  });

  it('passes openssl verify for TLS server use with the root as the only trust anchor', () => {
    writeFileSync(join(dir, 'root.pem'), root.certPem);
    writeFileSync(join(dir, 'inter.pem'), inter.certPem);
    writeFileSync(join(dir, 'server.pem'), server.certPem);
    const out = execFileSync('openssl', ['verify', '-purpose', 'sslserver', '-CAfile', join(dir, 'root.pem'), '-untrusted', join(dir, 'inter.pem'), join(dir, 'server.pem')], { encoding: 'utf8' });
    expect(out).toContain('OK');
  });

  it('uses ECDSA P-256 keys signed with ecdsa-with-SHA256, keys as PKCS#8 PEM', () => {
    for (const c of [root, inter, server]) {
      const cert = new x509.X509Certificate(c.certPem);
      expect(cert.signatureAlgorithm).toMatchObject({ name: 'ECDSA', hash: { name: 'SHA-256' } });
      expect(c.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
      const key = createPrivateKey(c.keyPem);
      expect(key.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
      // the key belongs to the certificate
      expect(createPublicKey(key).export({ format: 'der', type: 'spki' })).toEqual(new NodeX509(c.certPem).publicKey.export({ format: 'der', type: 'spki' }));
    }
  });

  it('marks the root and intermediate as CAs (intermediate pathLen 0) for cert and CRL signing', () => {
    expect(ext(root.certPem, x509.BasicConstraintsExtension)).toMatchObject({ ca: true, critical: true });
    expect(ext(inter.certPem, x509.BasicConstraintsExtension)).toMatchObject({ ca: true, pathLength: 0 });
    for (const c of [root, inter]) {
      expect(ext(c.certPem, x509.KeyUsagesExtension)!.usages).toBe(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign);
      expect(ext(c.certPem, x509.SubjectKeyIdentifierExtension)).toBeTruthy();
    }
    expect(ext(inter.certPem, x509.AuthorityKeyIdentifierExtension)!.keyId).toBe(ext(root.certPem, x509.SubjectKeyIdentifierExtension)!.keyId);
  });

  it('gives the server certificate its usages, names and lifetimes', () => {
    expect(ext(server.certPem, x509.BasicConstraintsExtension)!.ca).toBe(false);
    expect(ext(server.certPem, x509.KeyUsagesExtension)!.usages).toBe(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment);
    expect(ext(server.certPem, x509.ExtendedKeyUsageExtension)!.usages).toEqual([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]);
    const san = new NodeX509(server.certPem).subjectAltName!;
    for (const n of ['DNS:localhost', 'DNS:ctrl.example.com', 'DNS:alt.example.com', 'IP Address:127.0.0.1', 'IP Address:0:0:0:0:0:0:0:1', 'IP Address:10.1.2.3']) {
      expect(san.split(', ')).toContain(n);
    }
    expect(server.sans).toEqual(['ctrl.example.com', 'localhost', 'alt.example.com', '127.0.0.1', '::1', '10.1.2.3']);
    expect(server.subject).toBe('O=Edge Controller, CN=ctrl.example.com');
    const years = (c: IssuedCertificate) => Math.round((c.notAfter.getTime() - c.notBefore.getTime()) / (365 * 864e5));
    expect([years(root), years(inter), years(server)]).toEqual([10, 5, 1]);
  });

  it('uses distinct random positive serial numbers', () => {
    const serials = [root, inter, server].map((c) => c.serialNumber);
    expect(new Set(serials).size).toBe(3);
    for (const s of serials) expect(parseInt(s.slice(0, 2), 16)).toBeLessThan(0x80);
  });

  it('never issues a server certificate outliving its issuer', async () => {
    const late = new Date(inter.notAfter.getTime() - 30 * 864e5);
    const c = await createServerCertificate({ certPem: inter.certPem, key: await importPrivateKeyPem(inter.keyPem) }, names, late);
    expect(c.notAfter.getTime()).toBeLessThanOrEqual(inter.notAfter.getTime());
  });
});

import { execFileSync } from 'node:child_process';
import { X509Certificate as NodeX509 } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntermediateCa, createRootCa, type IssuedCertificate } from './certificates.js';
import { issueFromCsr, parseCsr } from './csr.js';
import { importPrivateKeyPem, nodeCrypto } from './keys.js';

let root: IssuedCertificate;
let inter: IssuedCertificate;
let dir: string;

beforeAll(async () => {
  root = await createRootCa();
  inter = await createIntermediateCa({ certPem: root.certPem, key: await importPrivateKeyPem(root.keyPem) });
  dir = mkdtempSync(join(tmpdir(), 'pki-csr-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A CSR made by openssl for a key of the given type, with DNS, IP and URI SANs. */
function opensslCsr(keyArgs: string[], cn: string): string {
  const key = join(dir, `key-${Math.random()}.pem`);
  execFileSync('openssl', ['genpkey', ...keyArgs, '-out', key], { stdio: 'ignore' });
  return execFileSync('openssl', ['req', '-new', '-key', key, '-subj', `/CN=${cn}/O=Acme`,
    '-addext', 'subjectAltName=DNS:router.example,IP:10.0.0.7,URI:spiffe://evil/identity/x'], { encoding: 'utf8' });
}

const issuer = async () => ({ certPem: inter.certPem, key: await importPrivateKeyPem(inter.keyPem) });

describe('enrollment CSRs', () => {
  it.each([
    ['P-256', ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256']],
    ['P-384', ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384']],
    ['RSA 2048', ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048']],
  ])('issues a client certificate for a %s key with CN = the identity id, clientAuth, one year', async (_name, args) => {
    const csr = await parseCsr(opensslCsr(args, 'whatever'), 'clientCsr');
    const pem = await issueFromCsr(await issuer(), csr, 'client', 'CN=ident1');
    const cert = new NodeX509(pem);
    expect(cert.subject).toBe('CN=ident1');
    expect(cert.verify(new NodeX509(inter.certPem).publicKey)).toBe(true);
    expect(cert.subjectAltName).toBeUndefined();
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    const days = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 864e5;
    expect(Math.round(days)).toBe(365);
    writeFileSync(join(dir, 'root.pem'), root.certPem);
    writeFileSync(join(dir, 'inter.pem'), inter.certPem);
    writeFileSync(join(dir, 'leaf.pem'), pem);
    const out = execFileSync('openssl', ['verify', '-purpose', 'sslclient', '-CAfile', join(dir, 'root.pem'), '-untrusted', join(dir, 'inter.pem'), join(dir, 'leaf.pem')], { encoding: 'utf8' });
    expect(out).toContain('OK');
  });

  it('copies DNS and IP names but never URIs into a server certificate', async () => {
    const csr = await parseCsr(opensslCsr(['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'], 'router1'), 'serverCsr');
    expect(csr.commonName).toBe('router1');
    const cert = new NodeX509(await issueFromCsr(await issuer(), csr, 'server'));
    expect(cert.subjectAltName).toBe('DNS:router.example, IP Address:10.0.0.7');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(cert.subject).toContain('CN=router1');
  });

  it('refuses garbage, two blocks, a small RSA key and a bad signature', async () => {
    await expect(parseCsr('not a csr', 'clientCsr')).rejects.toMatchObject({ code: 'MISSING_OR_INVALID_CSR' });
    await expect(parseCsr('', 'clientCsr')).rejects.toMatchObject({ code: 'MISSING_OR_INVALID_CSR' });
    const good = opensslCsr(['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'], 'a');
    await expect(parseCsr(good + good, 'clientCsr')).rejects.toMatchObject({ code: 'MISSING_OR_INVALID_CSR' });
    await expect(parseCsr(opensslCsr(['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024'], 'a'), 'clientCsr'))
      .rejects.toMatchObject({ code: 'MISSING_OR_INVALID_CSR', fieldCause: { field: 'clientCsr' } });
    // a CSR whose signature does not match its content
    const keys = await nodeCrypto().subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const req = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=x', keys, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } }, nodeCrypto());
    const raw = new Uint8Array(req.rawData);
    raw[raw.length - 5] ^= 0xff; // corrupt the signature
    await expect(parseCsr(x509.PemConverter.encode(raw.buffer, 'CERTIFICATE REQUEST'), 'clientCsr')).rejects.toMatchObject({ code: 'MISSING_OR_INVALID_CSR' });
  });
});

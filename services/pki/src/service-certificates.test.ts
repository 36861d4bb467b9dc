import { X509Certificate, createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isZitiError } from '@edge/errors';
import { silentLogger } from '@edge/logging';
import { createMeshCsr, joinAnswerMac, joinRequestMac, meshServerName } from '@edge/rpc';
import type { ControllerPki } from './controller-pki.js';
import { createServiceCa } from './domain/service-ca.js';
import { importPrivateKeyPem } from './domain/keys.js';
import { createServiceCertificateHandlers, issueOwnCertificate } from './service-certificates.js';

const TOKEN = 'pki-unit-test-join-token-0123456789abcdef';
const ca = await createServiceCa();
const signer = { certPem: ca.certPem, key: await importPrivateKeyPem(ca.keyPem) };
// Only the service CA is used by the join handler.
const pki = { serviceCa: async () => signer } as unknown as ControllerPki;
const NOW = Date.parse('2026-06-01T12:00:00Z');

async function request(overrides: { name?: string; timestampMs?: number; token?: string } = {}) {
  const { csrPem } = await createMeshCsr(overrides.name ?? 'session');
  const fields = { name: overrides.name ?? 'session', timestampMs: overrides.timestampMs ?? NOW, csrPem };
  return { ...fields, mac: joinRequestMac(overrides.token ?? TOKEN, fields) };
}

const refusal = (p: Promise<unknown>) => p.then(() => 'answered', (e: unknown) => (isZitiError(e) ? e.code : String(e)));

describe('IssueServiceCertificate', () => {
  const handlers = createServiceCertificateHandlers(pki, TOKEN, silentLogger(), () => NOW);

  it('issues a certificate from the service CA naming the process, with proof over the answer', async () => {
    const req = await request();
    const res = await handlers.IssueServiceCertificate(req, { requestId: 'r' });
    // The answer's fields are optional in its message type; an absent PEM fails to parse below.
    const { certPem = '', caPem = '' } = res;
    const cert = new X509Certificate(certPem);
    expect(cert.verify(new X509Certificate(caPem).publicKey)).toBe(true);
    expect(cert.subjectAltName).toBe(`DNS:${meshServerName('session')}`);
    expect(cert.keyUsage).toEqual(expect.arrayContaining(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']));
    expect(res.caPem).toBe(ca.certPem);
    expect(res.mac).toBe(joinAnswerMac(TOKEN, req.mac, certPem, caPem));
  });

  it('refuses another token, a request more than five minutes off, a name that is no process name, and everything without a token', async () => {
    expect(await refusal(handlers.IssueServiceCertificate(await request({ token: 'another-token-0123456789abcdef0123' }), { requestId: 'r' }))).toBe('UNAUTHORIZED');
    expect(await refusal(handlers.IssueServiceCertificate(await request({ timestampMs: NOW - 6 * 60_000 }), { requestId: 'r' }))).toBe('UNAUTHORIZED');
    expect(await refusal(handlers.IssueServiceCertificate(await request({ name: 'Evil.Name' }), { requestId: 'r' }))).toBe('UNAUTHORIZED');
    const off = createServiceCertificateHandlers(pki, undefined, silentLogger(), () => NOW);
    expect(await refusal(off.IssueServiceCertificate(await request(), { requestId: 'r' }))).toBe('UNAUTHORIZED');
  });

  it('refuses a request whose fields were changed after it was signed', async () => {
    const req = await request();
    const { csrPem } = await createMeshCsr('session');
    expect(await refusal(handlers.IssueServiceCertificate({ ...req, csrPem }, { requestId: 'r' }))).toBe('UNAUTHORIZED');
    expect(await refusal(handlers.IssueServiceCertificate({ ...req, name: 'gateway' }, { requestId: 'r' }))).toBe('UNAUTHORIZED');
  });

  it('gives the pki service its own certificate for a key made in the process', async () => {
    const own = await issueOwnCertificate(pki);
    expect(new X509Certificate(own.certPem).checkPrivateKey(createPrivateKey(own.keyPem))).toBe(true);
    expect(new X509Certificate(own.certPem).subjectAltName).toBe(`DNS:${meshServerName('pki')}`);
  });
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuthServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness.js';

const policy = (name: string, cert: { allowed: boolean; allowExpiredCerts: boolean }) => ({
  name, cert, extJwt: { allowed: true, allowedSigners: [] },
  updb: { allowed: true, minPasswordLength: 8, requireMixedCase: true, requireNumberChar: true, requireSpecialChar: false, maxAttempts: 0, lockoutDurationMinutes: 0 },
  secondary: { requireTotp: false }, tagsJson: '{}',
});

/** A self-signed certificate made by openssl (the auth service matches fingerprints, not issuers). */
function certificate(dir: string, days: number): string {
  const key = join(dir, `k${Math.random()}.pem`);
  const out = join(dir, `c${Math.random()}.pem`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', out, '-subj', '/CN=t', '-days', String(days)], { stdio: 'ignore' });
  return readFileSync(out, 'utf8');
}

describe('authenticators created by enrollment', () => {
  let h: Harness;
  let a: RpcClient<AuthServiceClient>;
  const dir = mkdtempSync(join(tmpdir(), 'auth-enr-'));

  beforeAll(async () => {
    h = await createHarness({ EDGE_ADMIN_PASSWORD: 'admin-secret' });
    ({ client: a } = await h.startAuth());
  });
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // regression: enrolled cert authenticators were never marked issued by the network, and API
  // sessions were never extendable (controller/internal/routes/authenticate_router.go)
  it('marks a certificate the controller CA issued as issued by the network, and its sessions as extendable', async () => {
    const controllerIssued = certificate(dir, 30); // self-signed, so "issued by" the chain that is itself
    h.identity.caCertsPem = controllerIssued;
    const mine = h.identity.add({ name: 'cert-network' });
    const theirs = h.identity.add({ name: 'cert-third-party' });
    const own = await a.createCertAuthenticator({ identityId: mine.id!, certPem: controllerIssued });
    const other = await a.createCertAuthenticator({ identityId: theirs.id!, certPem: certificate(dir, 30) });
    expect((await a.getAuthenticator({ id: own.id })).isIssuedByNetwork).toBe(true);
    expect((await a.getAuthenticator({ id: other.id })).isIssuedByNetwork).toBe(false);
    expect((await a.authenticate({ method: 'cert', clientCertPem: controllerIssued, clientCertError: '' })).isCertExtendable).toBe(true);
    const session = await a.authenticate({ method: 'cert', clientCertPem: (await a.getAuthenticator({ id: other.id })).certPem!, clientCertError: '' });
    expect(session.isCertExtendable).toBe(false);
    expect((await a.getApiSession({ id: session.id })).isCertExtendable).toBe(false);
  });

  it('stores a cert authenticator by SHA-1 fingerprint and logs in with it; the same certificate again is CERT_IN_USE', async () => {
    const one = h.identity.add({ name: 'cert-one' });
    const two = h.identity.add({ name: 'cert-two' });
    const pem = certificate(dir, 30);
    await a.createCertAuthenticator({ identityId: one.id!, certPem: pem });
    const [summary] = (await a.getIdentityAuthSummaries({ identityIds: [one.id!] })).summaries;
    expect(summary!.certFingerprint).toBe(execFileSync('openssl', ['x509', '-noout', '-fingerprint', '-sha1'], { input: pem, encoding: 'utf8' }).split('=')[1]!.trim().replace(/:/g, '').toLowerCase());
    await expect(a.createCertAuthenticator({ identityId: two.id!, certPem: pem })).rejects.toMatchObject({ code: 'CERT_IN_USE', status: 409 });
    await expect(a.createCertAuthenticator({ identityId: one.id!, certPem: certificate(dir, 30) })).rejects.toMatchObject({ code: 'ENROLLMENT_IDENTITY_ALREADY_ENROLLED' });
    const session = await a.authenticate({ method: 'cert', clientCertPem: pem, clientCertError: '' });
    expect(session.identityId).toBe(one.id);
    await expect(a.authenticate({ method: 'cert', clientCertPem: pem, clientCertError: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' })).rejects.toMatchObject({ code: 'INVALID_AUTH' });
    await expect(a.authenticate({ method: 'cert', clientCertPem: '', clientCertError: '' })).rejects.toMatchObject({ code: 'INVALID_AUTH' });
    await expect(a.authenticate({ method: 'cert', clientCertPem: certificate(dir, 30), clientCertError: '' })).rejects.toMatchObject({ code: 'INVALID_AUTH' });
  });

  it('applies primary.cert.allowed and allowExpiredCerts at certificate login', async () => {
    const { id: strict } = await a.createAuthPolicy({ fields: policy('no expired', { allowed: true, allowExpiredCerts: false }) });
    const { id: lenient } = await a.createAuthPolicy({ fields: policy('expired ok', { allowed: true, allowExpiredCerts: true }) });
    const { id: none } = await a.createAuthPolicy({ fields: policy('no certs', { allowed: false, allowExpiredCerts: true }) });
    const login = async (authPolicyId: string, tlsError: string) => {
      const identity = h.identity.add({ name: `p-${Math.random()}`, authPolicyId });
      const pem = certificate(dir, 30);
      await a.createCertAuthenticator({ identityId: identity.id!, certPem: pem });
      return a.authenticate({ method: 'cert', clientCertPem: pem, clientCertError: tlsError });
    };
    await expect(login(strict, 'CERT_HAS_EXPIRED')).rejects.toMatchObject({ code: 'INVALID_AUTH' });
    await expect(login(lenient, 'CERT_HAS_EXPIRED')).resolves.toMatchObject({ isMfaRequired: false });
    await expect(login(none, '')).rejects.toMatchObject({ code: 'INVALID_AUTH' });
  });

  it('creates a updb authenticator under the identity policy password rules', async () => {
    const { id: policyId } = await a.createAuthPolicy({ fields: policy('rules', { allowed: true, allowExpiredCerts: false }) });
    const user = h.identity.add({ name: 'updb-user', authPolicyId: policyId });
    await expect(a.createUpdbAuthenticator({ identityId: user.id!, username: 'updb-user', password: 'short1A' })).rejects.toMatchObject({ code: 'COULD_NOT_VALIDATE', fieldCause: { field: 'password', value: null } });
    await expect(a.createUpdbAuthenticator({ identityId: user.id!, username: 'updb-user', password: 'alllowercase1' })).rejects.toMatchObject({ fieldCause: { field: 'password' } });
    await expect(a.createUpdbAuthenticator({ identityId: user.id!, username: 'admin', password: 'Good-Password1' })).rejects.toMatchObject({ fieldCause: { field: 'username' } });
    await a.createUpdbAuthenticator({ identityId: user.id!, username: 'updb-user', password: 'Good-Password1' });
    await expect(a.authenticate({ method: 'password', username: 'updb-user', password: 'Good-Password1' })).resolves.toMatchObject({ identityId: user.id });
  });
});

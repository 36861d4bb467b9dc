/**
 * `POST /enroll/token`: an identity enrolls itself with a token from an external JWT signer that
 * allows it: with a CSR it gets a certificate (and logs in with it), without one it logs in with
 * such tokens. The identity is named and attributed by the signer's claim selectors.
 */
import { X509Certificate } from 'node:crypto';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caClient } from '../support/ca-client.js';
import { startTestController, type TestController } from '../support/controller.js';
import { makeCsr } from '../support/csr.js';
import { createTestCa, type TestCa } from '../support/test-ca.js';

const C = '/edge/client/v1';
let c: TestController;
let admin: string;
let idp: TestCa;
const { api, certLogin } = caClient(() => c, () => admin);

beforeAll(async () => {
  c = await startTestController();
  admin = await c.login();
  idp = await createTestCa('token-idp');
});
afterAll(async () => c?.stop());

/** A certificate of its own for the IdP's key: one certificate names one signer only (as in OpenZiti). */
async function idpCertificate(name: string): Promise<string> {
  const day = 24 * 60 * 60 * 1000;
  const serialNumber = Buffer.from(webcrypto.getRandomValues(new Uint8Array(8))).toString('hex').replace(/^[89a-f]/, '1');
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber, name: `CN=${name}`, notBefore: new Date(Date.now() - day), notAfter: new Date(Date.now() + day), keys: idp.keys,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
  });
  return cert.toString('pem');
}

/** Creates a signer verified by a certificate for the test IdP's key; returns its id. */
async function createSigner(name: string, issuer: string, extra: Record<string, unknown>): Promise<string> {
  return (await api.post('/external-jwt-signers', {
    name, enabled: true, issuer, audience: 'edge', certPem: await idpCertificate(name), claimsProperty: 'email', useExternalId: true,
    enrollNameClaimsSelector: 'preferred_username', enrollAttributeClaimsSelector: 'groups', ...extra,
  })).body.data.id as string;
}

function jwt(issuer: string, claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).setIssuer(issuer).setAudience('edge').setIssuedAt().setExpirationTime('5m').sign(idp.keys.privateKey);
}

function enroll(token: string | undefined, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return c.http.post(`${C}/enroll/token`, { body, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });
}

async function identityByExternalId(externalId: string): Promise<any> {
  return (await api.get(`/identities?filter=${encodeURIComponent(`externalId = "${externalId}"`)}`)).body.data[0];
}

describe('token enrollment', () => {
  const ISS = 'https://idp-enroll.test';
  let signer: string;
  beforeAll(async () => {
    signer = await createSigner('enrolling idp', ISS, { enrollToCertEnabled: true, enrollToTokenEnabled: true });
  });

  it('enrolls to a certificate with a CSR: the identity is named and attributed by the claims, then logs in with it', async () => {
    const token = await jwt(ISS, { email: 'dev1@example.test', preferred_username: 'dev1', groups: ['eng', 'ops'] });
    const { csrPem, keyPem } = await makeCsr('anything');
    const r = await enroll(token, { clientCsr: csrPem });
    expect(r.status).toBe(200);
    const identity = await identityByExternalId('dev1@example.test');
    expect(identity).toMatchObject({ name: 'dev1', roleAttributes: ['eng', 'ops'], authPolicyId: 'default' });
    expect(new X509Certificate(r.body.data.cert).subject).toBe(`CN=${identity.id}`);
    expect(r.body.data.ca).toContain('BEGIN CERTIFICATE');
    expect(await certLogin({ certPem: r.body.data.cert, keyPem })).toEqual({ status: 200, identityId: identity.id });

    const again = await enroll(token, { clientCsr: (await makeCsr('x')).csrPem });
    expect([again.status, again.body.error.code]).toEqual([409, 'ENROLLMENT_IDENTITY_ALREADY_ENROLLED']);
  });

  it('enrolls to token login without a CSR, and a bad CSR leaves no identity behind', async () => {
    const bad = await enroll(await jwt(ISS, { email: 'dev2@example.test', preferred_username: 'dev2' }), { clientCsr: 'not a csr' });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'MISSING_OR_INVALID_CSR']);
    expect(await identityByExternalId('dev2@example.test')).toBeUndefined();

    const r = await enroll(await jwt(ISS, { email: 'dev2@example.test', preferred_username: 'dev2' }), {});
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({});
    const identity = await identityByExternalId('dev2@example.test');
    expect(identity).toMatchObject({ name: 'dev2', roleAttributes: [] });
    const login = await c.http.post(`${C}/authenticate?method=ext-jwt`, { body: {}, headers: { authorization: `Bearer ${await jwt(ISS, { email: 'dev2@example.test' })}` }, expectStatus: 200 });
    expect(login.body.data.identityId).toBe(identity.id);
  });

  it('refuses a token whose JWT id was revoked, and creates nothing', async () => {
    const token = await new SignJWT({ email: 'revoked@example.test', preferred_username: 'revoked' }).setProtectedHeader({ alg: 'ES256' })
      .setIssuer(ISS).setAudience('edge').setIssuedAt().setExpirationTime('5m').setJti('enroll-jti-1').sign(idp.keys.privateKey);
    await api.post('/revocations', { id: 'enroll-jti-1', type: 'JTI' });
    const r = await enroll(token, {});
    expect([r.status, r.body.error.code]).toEqual([400, 'INVALID_ENROLLMENT_TOKEN']);
    expect(await identityByExternalId('revoked@example.test')).toBeUndefined();
  });

  it('refuses what the signer does not allow, unknown or missing tokens and another issuer than the one named', async () => {
    const certOnly = 'https://idp-cert-only.test';
    const certOnlyId = await createSigner('cert-only idp', certOnly, { enrollToCertEnabled: true, enrollToTokenEnabled: false });
    const noToken = await enroll(await jwt(certOnly, { email: 'dev3@example.test', preferred_username: 'dev3' }), {});
    expect([noToken.status, noToken.body.error.code]).toEqual([400, 'INVALID_ENROLLMENT_NOT_ALLOWED']);
    const tokenOnly = 'https://idp-token-only.test';
    await createSigner('token-only idp', tokenOnly, { enrollToCertEnabled: false, enrollToTokenEnabled: true });
    const noCert = await enroll(await jwt(tokenOnly, { email: 'dev3@example.test', preferred_username: 'dev3' }), { clientCsr: (await makeCsr('x')).csrPem });
    expect([noCert.status, noCert.body.error.code]).toEqual([400, 'INVALID_ENROLLMENT_NOT_ALLOWED']);

    expect((await enroll(undefined, {})).body.error.code).toBe('INVALID_ENROLLMENT_TOKEN');
    expect((await enroll('garbage', {})).body.error.code).toBe('INVALID_ENROLLMENT_TOKEN');
    expect((await enroll(await jwt('https://unknown.test', { email: 'x@y', preferred_username: 'x' }), {})).body.error.code).toBe('INVALID_ENROLLMENT_TOKEN');
    const named = await enroll(await jwt(ISS, { email: 'dev3@example.test', preferred_username: 'dev3' }), {}, { 'ziti-token-issuer-id': certOnlyId });
    expect([named.status, named.body.error.code]).toEqual([400, 'INVALID_ENROLLMENT_TOKEN']);
    const noName = await enroll(await jwt(ISS, { email: 'dev4@example.test' }), {});
    expect(noName.body.error.code).toBe('INVALID_ENROLLMENT_TOKEN');
    expect(await identityByExternalId('dev3@example.test')).toBeUndefined();

    // the matching issuer named explicitly is fine
    const ok = await enroll(await jwt(ISS, { email: 'dev5@example.test', preferred_username: 'dev5' }), {}, { 'ziti-token-issuer-id': signer });
    expect(ok.status).toBe(200);
  });
});

/**
 * Certificate authorities end to end: certificates issued by a verified, auth-enabled CA log in
 * (through the CA's externalId claim or a cert authenticator), an unverified or auth-disabled
 * CA's do not, and deleting a CA removes the authenticators it issued.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../support/admin-api.js';
import { caClient } from '../support/ca-client.js';
import { startTestController, type TestController } from '../support/controller.js';
import { createTestCa, issueClientCert } from '../support/test-ca.js';

let c: TestController;
let admin: string;
const { api, certLogin, eventually, createCa, verifyCa } = caClient(() => c, () => admin);

beforeAll(async () => {
  c = await startTestController();
  admin = await c.login();
});
afterAll(async () => c?.stop());

const CN_CLAIM = { location: 'COMMON_NAME', matcher: 'ALL', matcherCriteria: '', parser: 'NONE', parserCriteria: '', index: 0 };

describe('certificate login with CAs', () => {
  it('logs in the identity the CA claim names once the CA is verified, and not before', async () => {
    const ca = await createTestCa('claims-root');
    const caId = await createCa('claims-ca', ca, { externalIdClaim: CN_CLAIM });
    const identityId = (await api.post('/identities', { name: 'alice', type: 'User', isAdmin: false, externalId: 'ext-alice' })).body.data.id;
    const cert = await issueClientCert(ca, 'ext-alice');

    expect((await certLogin(cert)).status).toBe(401);
    await verifyCa(caId, ca);
    expect(await eventually(cert, 200)).toEqual({ status: 200, identityId });
    // a name no identity has as externalId
    expect((await certLogin(await issueClientCert(ca, 'ext-nobody'))).status).toBe(401);

    // switched off for authentication: the CA leaves the bundle again
    await api.patch(`/cas/${caId}`, { isAuthEnabled: false });
    expect((await eventually(cert, 401)).status).toBe(401);
  });

  it('reads the externalId from a SAN URI split by the claim parser', async () => {
    const ca = await createTestCa('san-root');
    const claim = { location: 'SAN_URI', matcher: 'SCHEME', matcherCriteria: 'spiffe', parser: 'SPLIT', parserCriteria: '/', index: 3 };
    await verifyCa(await createCa('san-ca', ca, { externalIdClaim: claim }), ca);
    const identityId = (await api.post('/identities', { name: 'bob', type: 'User', isAdmin: false, externalId: 'bob-ext' })).body.data.id;
    const cert = await issueClientCert(ca, 'whatever', { uris: ['https://example.test/x', 'spiffe://example.test/bob-ext'] });
    expect(await eventually(cert, 200)).toEqual({ status: 200, identityId });
  });

  it('refuses certificates of an unverified CA even with a cert authenticator, and removes its authenticators when the CA is deleted', async () => {
    const ca = await createTestCa('authn-root');
    const caId = await createCa('authn-ca', ca);
    const identityId = (await api.post('/identities', { name: 'carol', type: 'User', isAdmin: false })).body.data.id;
    const cert = await issueClientCert(ca, 'carol');
    const authId = (await api.post('/authenticators', { method: 'cert', identityId, certPem: cert.certPem })).body.data.id as string;

    expect((await certLogin(cert)).status).toBe(401);
    await verifyCa(caId, ca);
    expect(await eventually(cert, 200)).toEqual({ status: 200, identityId });

    await api.del(`/cas/${caId}`);
    let gone = false;
    for (let i = 0; i < 50 && !gone; i++) {
      gone = (await c.http.get(`${M}/authenticators/${authId}`, { session: admin })).status === 404;
      if (!gone) await new Promise((r) => setTimeout(r, 100));
    }
    expect(gone).toBe(true);
    expect((await eventually(cert, 401)).status).toBe(401);
  });
});

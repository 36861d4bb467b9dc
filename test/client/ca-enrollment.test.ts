/**
 * Enrollment with certificates a third-party CA issued, presented at TLS: ottca (an identity's
 * token redeemed with a certificate of the enrollment's CA) and CA auto-enrollment (the identity
 * is created from the certificate, named by the CA's identityNameFormat).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caClient } from '../support/ca-client.js';
import { startTestController, type TestController } from '../support/controller.js';
import { createTestCa, issueClientCert, type IssuedCert } from '../support/test-ca.js';

const C = '/edge/client/v1';
let c: TestController;
let admin: string;
const { api, presenting, eventually, createCa, verifyCa } = caClient(() => c, () => admin);

beforeAll(async () => {
  c = await startTestController();
  admin = await c.login();
});
afterAll(async () => c?.stop());

/**
 * POST to a client path presenting `cert` (none: a plain client). `skipValidation` for the 409
 * CERT_IN_USE OpenZiti answers (enrollment_mod_ca.go) that the spec does not list for enrollCa.
 */
function enroll(path: string, cert: IssuedCert | undefined, body?: unknown, skipValidation = false) {
  if (!cert) return c.http.post(`${C}${path}`, { body });
  return presenting(cert, (client) => client.post(`${C}${path}`, { body, skipValidation }));
}

async function identityNamed(name: string): Promise<any> {
  const r = await api.get(`/identities?filter=${encodeURIComponent(`name = "${name}"`)}`);
  return r.body.data[0];
}

async function ottcaIdentity(name: string, caId: string): Promise<{ id: string; token: string }> {
  const id = (await api.post('/identities', { name, type: 'User', isAdmin: false, enrollment: { ottca: caId } })).body.data.id as string;
  const detail = (await api.get(`/identities/${id}`)).body.data;
  expect(detail.enrollment.ottca).toMatchObject({ caId });
  return { id, token: detail.enrollment.ottca.token as string };
}

describe('ca auto-enrollment without CAs', () => {
  it('answers ENROLLMENT_NO_VALID_CAS while no verified CA allows it, and CERT_FAILED_VALIDATION without a certificate', async () => {
    const ca = await createTestCa('early-root');
    await createCa('early-ca', ca);
    const r = await enroll('/enroll/ca', await issueClientCert(ca, 'early'));
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('ENROLLMENT_NO_VALID_CAS');
    const none = await enroll('/enroll/ca', undefined);
    expect(none.body.error.code).toBe('CERT_FAILED_VALIDATION');
  });
});

describe('ottca enrollment', () => {
  it('turns the presented certificate of the enrollment CA into a cert authenticator, then certificate login works', async () => {
    const ca = await createTestCa('ottca-root');
    const caId = await createCa('ottca-ca', ca);
    await verifyCa(caId, ca);
    const { id, token } = await ottcaIdentity('ottca-user', caId);
    const cert = await issueClientCert(ca, 'ottca-user');

    const r = await enroll('/enroll/ottca', cert, { token });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({});
    expect((await api.get(`/identities/${id}/enrollments`)).body.data).toEqual([]);
    const authenticators = (await api.get(`/identities/${id}/authenticators`)).body.data;
    expect(authenticators).toHaveLength(1);
    expect(authenticators[0].method).toBe('cert');
    expect(await eventually(cert, 200)).toEqual({ status: 200, identityId: id });

    const again = await enroll('/enroll/ottca', cert, { token });
    expect(again.body.error.code).toBe('INVALID_ENROLLMENT_TOKEN');
  });

  it('refuses a certificate of another CA or none, then a CA no longer enabled or verified for ottca, and the token stays usable', async () => {
    const ca = await createTestCa('ottca2-root');
    const other = await createTestCa('ottca2-other');
    const caId = await createCa('ottca2-ca', ca);
    await verifyCa(caId, ca);
    const { id, token } = await ottcaIdentity('ottca2-user', caId);
    const cert = await issueClientCert(ca, 'ottca2-user');

    const foreign = await enroll('/enroll/ottca', await issueClientCert(other, 'ottca2-user'), { token });
    expect([foreign.status, foreign.body.error.code]).toEqual([400, 'CERT_FAILED_VALIDATION']);
    const none = await enroll('/enroll/ottca', undefined, { token });
    expect([none.status, none.body.error.code]).toEqual([400, 'CERT_FAILED_VALIDATION']);

    await api.patch(`/cas/${caId}`, { isOttCaEnrollmentEnabled: false });
    const disabled = await enroll('/enroll/ottca', cert, { token });
    expect([disabled.status, disabled.body.error.code]).toEqual([400, 'ENROLLMENT_CA_NOT_VALID']);
    await api.patch(`/cas/${caId}`, { isOttCaEnrollmentEnabled: true });

    // the generic endpoint, token in the query
    const generic = await enroll(`/enroll?method=ottca&token=${token}`, cert);
    expect(generic.status).toBe(200);
    expect((await api.get(`/identities/${id}/authenticators`)).body.data).toHaveLength(1);
  });

  it('answers ENROLLMENT_CA_NOT_VALID for an unverified CA and 400 REFERENCED_ENTITY_NOT_FOUND for an unknown one', async () => {
    const ca = await createTestCa('ottca3-root');
    const caId = await createCa('ottca3-ca', ca);
    const { token } = await ottcaIdentity('ottca3-user', caId);
    const r = await enroll('/enroll/ottca', await issueClientCert(ca, 'ottca3-user'), { token });
    expect([r.status, r.body.error.code]).toEqual([400, 'ENROLLMENT_CA_NOT_VALID']);

    const unknown = await api.post('/identities', { name: 'ottca3-nobody', type: 'User', isAdmin: false, enrollment: { ottca: 'no-such-ca' } }, 400);
    expect(unknown.body.error).toMatchObject({ code: 'REFERENCED_ENTITY_NOT_FOUND', cause: { field: 'enrollment.ottca' } });
    const viaEnrollments = await api.post('/enrollments', { method: 'ottca', identityId: (await identityNamed('ottca3-user')).id, caId: 'no-such-ca', expiresAt: new Date(Date.now() + 60_000).toISOString() }, 400);
    expect(viaEnrollments.body.error.code).toBe('REFERENCED_ENTITY_NOT_FOUND');
  });
});

describe('ca auto-enrollment', () => {
  it('creates the identity named by the CA format with its roles and cert authenticator; the same certificate again is CERT_IN_USE', async () => {
    const ca = await createTestCa('auto-root');
    const caId = await createCa('auto', ca, { identityRoles: ['auto-enrolled', 'fleet'] });
    await verifyCa(caId, ca);
    const cert = await issueClientCert(ca, 'device1');

    const r = await enroll('/enroll/ca', cert);
    expect(r.status).toBe(200);
    const identity = await identityNamed('auto-device1');
    expect(identity).toMatchObject({ roleAttributes: ['auto-enrolled', 'fleet'], isAdmin: false });
    expect(await eventually(cert, 200)).toEqual({ status: 200, identityId: identity.id });

    const again = await enroll('/enroll/ca', cert, undefined, true);
    expect([again.status, again.body.error.code]).toEqual([409, 'CERT_IN_USE']);
    const list = await api.get(`/identities?filter=${encodeURIComponent('name contains "auto-device1"')}`);
    expect(list.body.data).toHaveLength(1);

    // another certificate with the same CN: the name gets a numeric suffix
    expect((await enroll('/enroll?method=ca', await issueClientCert(ca, 'device1'))).status).toBe(200);
    expect(await identityNamed('auto-device1000001')).toBeDefined();
  });

  it('fills [requestedName], [caId] and [identityId], and refuses CAs not enabled for auto-enrollment', async () => {
    const ca = await createTestCa('auto2-root');
    const caId = await createCa('auto2', ca, { identityNameFormat: '[requestedName]@[caId]' });
    await verifyCa(caId, ca);
    expect((await enroll('/enroll?method=ca', await issueClientCert(ca, 'd2'), { name: 'kiosk' })).status).toBe(200);
    expect(await identityNamed(`kiosk@${caId}`)).toBeDefined();

    // no requested name: the identity id stands in
    expect((await enroll('/enroll/ca', await issueClientCert(ca, 'd3'))).status).toBe(200);
    const byCa = await api.get(`/identities?filter=${encodeURIComponent(`name contains "@${caId}"`)}`);
    const unnamed = byCa.body.data.find((i: { name: string }) => i.name !== `kiosk@${caId}`);
    expect(unnamed.name).toBe(`${unnamed.id}@${caId}`);

    await api.patch(`/cas/${caId}`, { isAutoCaEnrollmentEnabled: false });
    const off = await enroll('/enroll/ca', await issueClientCert(ca, 'd4'));
    expect([off.status, off.body.error.code]).toEqual([400, 'CERT_FAILED_VALIDATION']);
  });
});

import { X509Certificate } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, importX509, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createIntermediateCa, createRootCa, createServerCertificate, type IssuedCertificate } from './certificates.js';
import { enrollmentClaims } from './enrollment.js';
import { certificateKeyId, enrollmentJwks, signEnrollmentJwt } from './enrollment-jwt.js';
import { importPrivateKeyPem } from './keys.js';

let server: IssuedCertificate;
let inter: IssuedCertificate;

beforeAll(async () => {
  const root = await createRootCa();
  inter = await createIntermediateCa({ certPem: root.certPem, key: await importPrivateKeyPem(root.keyPem) });
  server = await createServerCertificate({ certPem: inter.certPem, key: await importPrivateKeyPem(inter.keyPem) }, { dns: ['localhost'], ips: [] });
});

const claims = () => enrollmentClaims({
  method: 'ott', token: 'c0ffee00-0000-4000-8000-000000000001', expiresAt: new Date(Date.now() + 3600_000),
  identityId: 'ident1', edgeRouterId: null, transitRouterId: null,
}, 'ctrl.example:1280');

describe('enrollment JWTs', () => {
  it('are ES256 with the server certificate fingerprint as kid and verify with its public key', async () => {
    const jwt = await signEnrollmentJwt(server, claims());
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'ES256', kid: certificateKeyId(server.certPem), typ: 'JWT' });
    expect(certificateKeyId(server.certPem)).toBe(new X509Certificate(server.certPem).fingerprint.replace(/:/g, '').toLowerCase());
    const { payload } = await jwtVerify(jwt, await importX509(server.certPem, 'ES256'));
    expect(payload).toMatchObject({ em: 'ott', jti: 'c0ffee00-0000-4000-8000-000000000001', iss: 'https://ctrl.example:1280', sub: 'ident1', aud: [''], ctrls: ['https://ctrl.example:1280'] });
    expect(typeof payload.exp).toBe('number');
  });

  it('verify against the published JWKS, which carries the chain in x5c', async () => {
    const jwks = await enrollmentJwks(server.certPem + inter.certPem);
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: certificateKeyId(server.certPem) });
    expect(jwks.keys[0]!.x5c).toHaveLength(2);
    expect(jwks.keys[0]).not.toHaveProperty('d');
    await jwtVerify(await signEnrollmentJwt(server, claims()), createLocalJWKSet(jwks));
  });
});

import { describe, expect, it } from 'vitest';
import { checkRedeemable, enrollmentClaims, expiryOf, hashEnrollmentToken, newEnrollmentToken, validateEnrollmentRequest } from './enrollment.js';

const now = new Date('2030-01-01T00:00:00Z');

describe('enrollment rules', () => {
  it('defaults the expiry to the configured minutes and refuses one in the past', () => {
    expect(expiryOf(undefined, 180, now).toISOString()).toBe('2030-01-01T03:00:00.000Z');
    expect(expiryOf('2030-01-02T00:00:00Z', 180, now).toISOString()).toBe('2030-01-02T00:00:00.000Z');
    expect(() => expiryOf('2029-12-31T00:00:00Z', 180, now)).toThrow(expect.objectContaining({ fieldCause: expect.objectContaining({ field: 'expiresAt' }) }));
    expect(() => expiryOf('yesterday', 180, now)).toThrow(expect.objectContaining({ code: 'COULD_NOT_VALIDATE' }));
  });

  it('asks each method for what it needs', () => {
    expect(validateEnrollmentRequest({ method: 'updb', identityId: 'i', username: ' bob ' }, 1, now)).toMatchObject({ username: 'bob', identityId: 'i' });
    expect(validateEnrollmentRequest({ method: 'erott', edgeRouterId: 'r' }, 1, now)).toMatchObject({ edgeRouterId: 'r', identityId: null });
    expect(() => validateEnrollmentRequest({ method: 'ott' }, 1, now)).toThrow(expect.objectContaining({ fieldCause: expect.objectContaining({ field: 'identityId' }) }));
    expect(() => validateEnrollmentRequest({ method: 'ottca', identityId: 'i' }, 1, now)).toThrow(expect.objectContaining({ fieldCause: expect.objectContaining({ field: 'caId' }) }));
    expect(() => validateEnrollmentRequest({ method: 'ca', identityId: 'i' }, 1, now)).toThrow(expect.objectContaining({ fieldCause: expect.objectContaining({ field: 'method' }) }));
  });

  it('refuses a token through another method endpoint, or once expired', () => {
    const e = { method: 'ott' as const, expiresAt: new Date(now.getTime() + 1000) };
    expect(() => checkRedeemable(e, '', now)).not.toThrow();
    expect(() => checkRedeemable(e, 'updb', now)).toThrow(expect.objectContaining({ code: 'INVALID_ENROLL_METHOD' }));
    expect(() => checkRedeemable(e, 'ott', new Date(now.getTime() + 1000))).toThrow(expect.objectContaining({ code: 'ENROLLMENT_EXPIRED' }));
  });

  it('signs the claims OpenZiti puts in an enrollment JWT', () => {
    const token = newEnrollmentToken();
    expect(token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(hashEnrollmentToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(enrollmentClaims({ method: 'erott', token, expiresAt: now, identityId: null, edgeRouterId: 'r1', transitRouterId: null }, 'ctrl:1280'))
      .toEqual({ em: 'erott', jti: token, iss: 'https://ctrl:1280', sub: 'r1', aud: [''], exp: now.getTime() / 1000, ctrls: ['https://ctrl:1280'] });
  });
});

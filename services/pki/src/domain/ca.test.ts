import { describe, expect, it } from 'vitest';
import { checkVerification, pemCertificates } from './ca.js';

const unverified = { certPem: '', isVerified: false, verificationToken: 'token' };

describe('PEM reading', () => {
  it('answers a megabyte of hostile BEGIN lines with a 400 at once, not after seconds of matching', () => {
    const hostile = '-----BEGIN A-----\n'.repeat(60_000);
    expect(() => checkVerification(unverified, hostile)).toThrow(expect.objectContaining({ code: 'COULD_NOT_PARSE_BODY' }));
    expect(pemCertificates(hostile)).toEqual([]);
  }, 5_000);

  it('names the block type of a body that is not a certificate, and ignores blocks whose labels differ', () => {
    expect(() => checkVerification(unverified, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'))
      .toThrow(expect.objectContaining({ code: 'EXPECTED_PEM_CERTIFICATE' }));
    expect(() => checkVerification(unverified, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END PRIVATE KEY-----\n'))
      .toThrow(expect.objectContaining({ code: 'COULD_NOT_PARSE_BODY' }));
  });
});

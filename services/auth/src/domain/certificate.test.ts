import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DEFAULT_AUTH_POLICY_ID, type AuthPolicy } from './auth-policy.js';
import { certificateLoginAllowed, fingerprintOf, leafCertificate } from './certificate.js';
import { passwordRuleBreach } from './password.js';

const pem = execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', '/dev/null', '-subj', '/CN=t', '-days', '1'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
const policy = (allowed: boolean, allowExpiredCerts: boolean) => ({
  id: DEFAULT_AUTH_POLICY_ID, primary: { cert: { allowed, allowExpiredCerts } },
}) as unknown as AuthPolicy;

describe('certificate authenticators', () => {
  it('fingerprints the leaf DER with SHA-1 in lower-case hex', () => {
    const cert = leafCertificate(pem + pem);
    expect(fingerprintOf(cert)).toBe(cert.fingerprint.replace(/:/g, '').toLowerCase());
    expect(() => leafCertificate('nothing')).toThrow(expect.objectContaining({ code: 'COULD_NOT_VALIDATE' }));
  });

  it('lets a certificate in only when TLS verified it, or it merely expired and the policy allows that', () => {
    const cert = leafCertificate(pem);
    const at = (tlsError: string, p: AuthPolicy, now = new Date()) => certificateLoginAllowed({ pem, tlsError }, cert, p, now);
    expect(at('', policy(true, false))).toBe(true);
    expect(at('', policy(false, true))).toBe(false);
    expect(at('UNABLE_TO_VERIFY_LEAF_SIGNATURE', policy(true, true))).toBe(false);
    expect(at('CERT_HAS_EXPIRED', policy(true, false))).toBe(false);
    expect(at('CERT_HAS_EXPIRED', policy(true, true))).toBe(true);
    const later = new Date(Date.now() + 3 * 864e5);
    expect(at('', policy(true, false), later)).toBe(false);
    expect(at('', policy(true, true), later)).toBe(true);
  });
});

describe('password rules', () => {
  const rules = { minPasswordLength: 8, requireMixedCase: true, requireNumberChar: true, requireSpecialChar: true };
  it('names the first rule a password breaks', () => {
    expect(passwordRuleBreach('Ab1!', rules)).toMatch(/at least 8/);
    expect(passwordRuleBreach('abcdefg1!', rules)).toMatch(/upper and lower/);
    expect(passwordRuleBreach('Abcdefgh!', rules)).toMatch(/number/);
    expect(passwordRuleBreach('Abcdefgh1', rules)).toMatch(/special/);
    expect(passwordRuleBreach('Abcdefg1!', rules)).toBeUndefined();
    expect(passwordRuleBreach('x'.repeat(101), { ...rules, minPasswordLength: 5, requireMixedCase: false, requireNumberChar: false, requireSpecialChar: false })).toMatch(/at most/);
  });
});

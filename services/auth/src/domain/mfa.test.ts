import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ZITI_MFA_QUERY, authQueries, hashRecoveryCode, isRecoveryCodeShape, newRecoveryCodes, recoveryCodeKey, totpLabels } from './mfa.js';

describe('MFA rules', () => {
  it('makes 20 distinct 6-character base32 recovery codes', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(20);
    expect(new Set(codes).size).toBe(20);
    for (const c of codes) expect(isRecoveryCodeShape(c)).toBe(true);
    expect(isRecoveryCodeShape('abcdef')).toBe(true);
    expect(isRecoveryCodeShape('ABC01')).toBe(false);
    expect(isRecoveryCodeShape('ABCDE1')).toBe(false);
  });

  it('hashes recovery codes under a key from the KEK, per enrollment, case-insensitively', () => {
    const key = recoveryCodeKey(randomBytes(32));
    const h = hashRecoveryCode(key, 'm1', 'ABCDEF');
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(hashRecoveryCode(key, 'm1', 'abcdef')).toBe(h);
    expect(hashRecoveryCode(key, 'm2', 'ABCDEF')).not.toBe(h);
    expect(hashRecoveryCode(recoveryCodeKey(randomBytes(32)), 'm1', 'ABCDEF')).not.toBe(h);
  });

  it('asks for the Ziti MFA query only while MFA is outstanding', () => {
    expect(authQueries({ isMfaRequired: true, isMfaComplete: false })).toEqual([{
      typeId: 'MFA', provider: 'ziti', format: 'alphaNumeric', httpMethod: 'POST', httpUrl: './authenticate/mfa', minLength: 4, maxLength: 6,
    }]);
    expect(authQueries({ isMfaRequired: true, isMfaComplete: true })).toEqual([]);
    expect(authQueries({ isMfaRequired: true, isMfaComplete: false }, true)).toEqual([{ ...ZITI_MFA_QUERY, isTotpEnrolled: true }]);
    expect(authQueries({ isMfaRequired: true, isMfaComplete: false }, false)).toEqual([{ ...ZITI_MFA_QUERY, isTotpEnrolled: false }]);
    expect(authQueries({ isMfaRequired: false, isMfaComplete: false })).toEqual([]);
  });

  it('names the issuer after the advertised host', () => {
    expect(totpLabels('alice', 'ctrl.example:1280')).toEqual({ issuer: 'ctrl.example', label: 'alice' });
    expect(totpLabels('bob', '[::1]:1280').issuer).toBe('::1');
  });
});

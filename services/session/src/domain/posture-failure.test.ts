import { describe, expect, it } from 'vitest';
import { failureValues } from './posture-failure.js';
import type { PostureCheckDef } from './posture.js';

describe('posture check failure values', () => {
  const mfa: PostureCheckDef = { id: 'x', name: 'mfa', typeId: 'MFA', data: { timeoutSeconds: 600, promptOnWake: true, promptOnUnlock: false } };
  const passedAt = new Date('2026-01-01T00:00:00Z');
  const at = (seconds: number) => new Date(passedAt.getTime() + seconds * 1000);

  // As PostureCheckMfa.FailureValues (controller/model/posture_check_model_mfa.go).
  it('reports an MFA check never passed as not passed and timed out, with empty criteria', () => {
    expect(failureValues(mfa, {}, at(0))).toEqual({
      actualValue: { passedMfa: false, timedOut: true, passedOnWake: false, passedOnUnlock: true },
      expectedValue: { passedMfa: true, timedOut: false, passedOnWake: true, passedOnUnlock: false },
      criteria: { passedMfaAt: null, wokenAt: null, unlockedAt: null, timeoutSeconds: 600, timeoutRemainingSeconds: 0 },
    });
  });

  it('reports an MFA pass that timed out, and a wake whose grace period ran out', () => {
    const woken = at(100).toISOString();
    expect(failureValues(mfa, { mfa: { passedAt }, endpointState: { wokenAt: woken } }, at(700))).toEqual({
      actualValue: { passedMfa: true, timedOut: true, passedOnWake: false, passedOnUnlock: true },
      expectedValue: { passedMfa: true, timedOut: false, passedOnWake: true, passedOnUnlock: false },
      criteria: { passedMfaAt: passedAt.toISOString(), wokenAt: woken, unlockedAt: null, timeoutSeconds: 600, timeoutRemainingSeconds: 0 },
    });
    expect((failureValues(mfa, { mfa: { passedAt }, endpointState: { wokenAt: woken } }, at(200)).actualValue as { passedOnWake: boolean }).passedOnWake).toBe(true);
  });

  it('reports an unreported process as not running, and no values for an unknown type', () => {
    const proc: PostureCheckDef = { id: 'p', name: 'p', typeId: 'PROCESS', data: { process: { osType: 'Linux', path: '/bin/a', signerFingerprint: 'F' } } };
    expect(failureValues(proc, {})).toEqual({
      actualValue: { isRunning: false, hash: '', signerFingerprints: [] },
      expectedValue: { osType: 'Linux', path: '/bin/a', hashes: [], signerFingerprint: 'F' },
    });
    expect(failureValues({ id: 'q', name: 'q', typeId: 'FIREWALL', data: {} }, {})).toEqual({});
  });
});

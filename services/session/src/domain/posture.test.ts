import { describe, expect, it } from 'vitest';
import { checkPasses, evaluatePosture, queryState, versionMatches, type PostureCheckDef } from './posture.js';

const domain: PostureCheckDef = { id: 'd', name: 'domain', typeId: 'DOMAIN', data: { domains: ['Corp.Example'] } };
const mac: PostureCheckDef = { id: 'm', name: 'mac', typeId: 'MAC', data: { macAddresses: ['AA:BB:CC:DD:EE:FF'] } };
const checks = new Map([[domain.id, domain], [mac.id, mac]]);

describe('posture evaluation', () => {
  it('passes a check only with matching data', () => {
    expect(checkPasses(domain, {})).toBe(false);
    expect(checkPasses(domain, { domain: 'corp.example' })).toBe(true);
    expect(checkPasses(mac, { macAddresses: ['aabbccddeeff'] })).toBe(true);
    expect(checkPasses(mac, { macAddresses: ['00:00:00:00:00:01'] })).toBe(false);
  });

  it('compares OS versions', () => {
    expect(versionMatches([], '1.0')).toBe(true);
    expect(versionMatches(['>=10.0.19041'], '10.0.22000')).toBe(true);
    expect(versionMatches(['>=10.0.19041 <11'], '11.1')).toBe(false);
    expect(versionMatches(['13.1'], '13.1.0')).toBe(true);
  });

  it('lets a session through when one policy of its type passes, and names the failing ones otherwise', () => {
    const strict = { id: 'p1', name: 'strict', type: 'Dial' as const, checkIds: ['d', 'm'] };
    const open = { id: 'p2', name: 'open', type: 'Dial' as const, checkIds: [] };
    const bind = { id: 'p3', name: 'bind', type: 'Bind' as const, checkIds: ['d'] };
    expect(evaluatePosture([strict, open], 'Dial', checks, {})).toEqual({ passed: true, passingPolicyIds: ['p2'], failures: [expect.objectContaining({ policyId: 'p1' })] });
    const refused = evaluatePosture([strict, bind], 'Dial', checks, { domain: 'corp.example' });
    expect(refused.passed).toBe(false);
    expect(refused.failures).toEqual([{ policyId: 'p1', policyName: 'strict', checks: [{ postureCheckId: 'm', postureCheckName: 'mac', postureCheckType: 'MAC' }] }]);
  });

  it('reports a query\'s state, with a timeout only for MFA checks', () => {
    const mfa: PostureCheckDef = { id: 'x', name: 'mfa', typeId: 'MFA', data: { timeoutSeconds: 120 } };
    expect(queryState(domain, { domain: 'corp.example' })).toEqual({ isPassing: true, timeoutRemaining: -1 });
    expect(queryState(mfa, {})).toEqual({ isPassing: false, timeoutRemaining: 0 });
    expect(queryState(mfa, { mfa: { passedAt: new Date() } })).toEqual({ isPassing: true, timeoutRemaining: 120 });
    expect(queryState(undefined, {})).toEqual({ isPassing: false, timeoutRemaining: -1 });
  });

  it('counts an MFA pass down from when MFA was completed, and fails it once timed out', () => {
    const mfa: PostureCheckDef = { id: 'x', name: 'mfa', typeId: 'MFA', data: { timeoutSeconds: 120 } };
    const forEver: PostureCheckDef = { id: 'y', name: 'mfa', typeId: 'MFA', data: { timeoutSeconds: -1 } };
    const passedAt = new Date('2026-01-01T00:00:00Z');
    const at = (seconds: number) => new Date(passedAt.getTime() + seconds * 1000);
    expect(queryState(mfa, { mfa: { passedAt } }, at(30))).toEqual({ isPassing: true, timeoutRemaining: 90 });
    expect(queryState(mfa, { mfa: { passedAt } }, at(119.5))).toEqual({ isPassing: true, timeoutRemaining: 1 });
    expect(queryState(mfa, { mfa: { passedAt } }, at(120))).toEqual({ isPassing: false, timeoutRemaining: 0 });
    expect(checkPasses(mfa, { mfa: { passedAt } }, at(121))).toBe(false);
    expect(queryState(forEver, { mfa: { passedAt } }, at(1e6))).toEqual({ isPassing: true, timeoutRemaining: -1 });
    expect(queryState(forEver, {}, at(0))).toEqual({ isPassing: false, timeoutRemaining: -1 });
    // A session asked for after the timeout is refused by a policy needing that check.
    const policy = { id: 'p', name: 'mfa', type: 'Dial' as const, checkIds: ['x'] };
    expect(evaluatePosture([policy], 'Dial', new Map([['x', mfa]]), { mfa: { passedAt } }, at(60)).passed).toBe(true);
    expect(evaluatePosture([policy], 'Dial', new Map([['x', mfa]]), { mfa: { passedAt } }, at(600)).passed).toBe(false);
  });
});

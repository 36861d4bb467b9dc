import { describe, expect, it } from 'vitest';
import { endpointEvents, promptedServices } from './posture-response.js';
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

  // Regression: a PROCESS check's `signerFingerprint` (singular) was never compared.
  it('passes a PROCESS check only with its signer fingerprint and one of its hashes', () => {
    const proc: PostureCheckDef = { id: 'p', name: 'proc', typeId: 'PROCESS', data: { process: { osType: 'Linux', path: '/bin/a', hashes: ['AB'], signerFingerprint: 'F1' } } };
    const running = (extra: Record<string, unknown>) => ({ processes: [{ path: '/bin/a', isRunning: true, hash: 'ab', ...extra }] });
    expect(checkPasses(proc, running({ signerFingerprints: ['f1'] }))).toBe(true);
    expect(checkPasses(proc, running({ signerFingerprints: ['f2'] }))).toBe(false);
    expect(checkPasses(proc, running({}))).toBe(false);
    expect(checkPasses(proc, running({ hash: 'cd', signerFingerprints: ['F1'] }))).toBe(false);
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

  it('cuts an MFA pass to the grace period after a wake or unlock its check prompts on', () => {
    const passedAt = new Date('2026-01-01T00:00:00Z');
    const at = (seconds: number) => new Date(passedAt.getTime() + seconds * 1000);
    const iso = (seconds: number) => at(seconds).toISOString();
    const onWake: PostureCheckDef = { id: 'w', name: 'mfa', typeId: 'MFA', data: { timeoutSeconds: -1, promptOnWake: true, promptOnUnlock: false } };
    const timed: PostureCheckDef = { id: 't', name: 'mfa', typeId: 'MFA', data: { timeoutSeconds: 3600, promptOnWake: true, promptOnUnlock: true } };
    // Without a wake nothing limits the pass.
    expect(queryState(onWake, { mfa: { passedAt } }, at(10_000))).toEqual({ isPassing: true, timeoutRemaining: -1 });
    // Woken at 600 s: 300 s of grace from then.
    const woken = { mfa: { passedAt }, endpointState: { wokenAt: iso(600) } };
    expect(queryState(onWake, woken, at(700))).toEqual({ isPassing: true, timeoutRemaining: 200 });
    expect(queryState(onWake, woken, at(900))).toEqual({ isPassing: false, timeoutRemaining: 0 });
    // An unlock does not count for a check that prompts on wake only.
    expect(queryState(onWake, { mfa: { passedAt }, endpointState: { unlockedAt: iso(600) } }, at(5_000)).isPassing).toBe(true);
    // The grace period never lengthens a shorter timeout.
    expect(queryState(timed, { mfa: { passedAt }, endpointState: { unlockedAt: iso(3500) } }, at(3550))).toEqual({ isPassing: true, timeoutRemaining: 50 });
    expect(queryState(timed, { mfa: { passedAt }, endpointState: { unlockedAt: iso(100) } }, at(150))).toEqual({ isPassing: true, timeoutRemaining: 250 });
    // A wake before MFA was completed does not count.
    expect(queryState(onWake, { mfa: { passedAt }, endpointState: { wokenAt: iso(-60) } }, at(10_000)).isPassing).toBe(true);
  });

  it('names the services a wake or unlock cut short, each with its soonest MFA timeout', () => {
    const passedAt = new Date('2026-01-01T00:00:00Z');
    const now = new Date(passedAt.getTime() + 1000 * 1000);
    const data = { mfa: { passedAt }, endpointState: { wokenAt: now.toISOString() } };
    const long: PostureCheckDef = { id: 'long', name: 'mfa-long', typeId: 'MFA', data: { timeoutSeconds: 7200, promptOnWake: true } };
    const short: PostureCheckDef = { id: 'short', name: 'mfa-short', typeId: 'MFA', data: { timeoutSeconds: 1100, promptOnWake: true } };
    const unlockOnly: PostureCheckDef = { id: 'unlock', name: 'mfa-unlock', typeId: 'MFA', data: { timeoutSeconds: -1, promptOnUnlock: true } };
    const checks = new Map([long, short, unlockOnly, domain].map((c) => [c.id, c]));
    const services = [
      { id: 's1', name: 'one', checkIds: ['long', 'short'] },
      { id: 's2', name: 'two', checkIds: ['unlock', 'd'] },
      { id: 's3', name: 'three', checkIds: [] },
    ];
    expect(endpointEvents([{ typeId: 'ENDPOINT_STATE', woken: true }, { typeId: 'OS' }])).toEqual({ woken: true, unlocked: false });
    expect(promptedServices(services, checks, data, { woken: true, unlocked: false }, now)).toEqual([
      // 1100 s from MFA is 100 s away, shorter than the 300 s grace after the wake.
      { id: 's1', name: 'one', postureQueryType: 'MFA', timeout: 1100, timeoutRemaining: 100 },
    ]);
    const unlocked = { mfa: { passedAt }, endpointState: { unlockedAt: now.toISOString() } };
    expect(promptedServices(services, checks, unlocked, { woken: false, unlocked: true }, now)).toEqual([
      { id: 's2', name: 'two', postureQueryType: 'MFA', timeout: -1, timeoutRemaining: 300 },
    ]);
  });
});

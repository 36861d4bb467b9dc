import { describe, expect, it } from 'vitest';
import type { policy } from '@edge/proto';
import { checkPasses, evaluatePosture } from './domain/posture.js';
import { failureValues } from './domain/posture-failure.js';
import { checksOf, grantingPolicies, postureCheckDef } from './posture-definition.js';

/** A definition as the policy service sends it: every field present, those of other types empty. */
function definition(d: Partial<policy.PostureCheckDefinition__Output>): policy.PostureCheckDefinition__Output {
  return {
    id: 'c', name: 'check', typeId: 'DOMAIN', version: 1, tagsJson: '{}', createdAt: '', updatedAt: '',
    operatingSystems: [], process: null, processes: [], semantic: '', domains: [], macAddresses: [],
    timeoutSeconds: -1, promptOnWake: false, promptOnUnlock: false, ignoreLegacyEndpoints: false, ...d,
  };
}

const proc = (p: Partial<policy.PostureProcess__Output>): policy.PostureProcess__Output =>
  ({ osType: 'Linux', path: '/usr/bin/agent', hashes: [], signerFingerprint: '', signerFingerprints: [], ...p });

describe('posture checks from their typed definitions', () => {
  it('keeps the one signer fingerprint of a PROCESS check, which evaluation and failures read', () => {
    const check = postureCheckDef(definition({ typeId: 'PROCESS', process: proc({ hashes: ['AB'], signerFingerprint: 'F1' }) }));
    expect(check.data).toEqual({ process: { osType: 'Linux', path: '/usr/bin/agent', hashes: ['AB'], signerFingerprint: 'F1' } });
    const running = { processes: [{ path: '/usr/bin/agent', isRunning: true, hash: 'ab', signerFingerprints: ['f1'] }] };
    expect(checkPasses(check, running)).toBe(true);
    expect(checkPasses(check, { processes: [{ ...running.processes[0]!, signerFingerprints: ['other'] }] })).toBe(false);
    expect(failureValues(check, {}).expectedValue).toEqual({ osType: 'Linux', path: '/usr/bin/agent', hashes: ['AB'], signerFingerprint: 'F1' });
  });

  it('keeps the processes and semantic of a PROCESS_MULTI check', () => {
    const check = postureCheckDef(definition({
      typeId: 'PROCESS_MULTI', semantic: 'AnyOf', processes: [proc({ path: '/a', signerFingerprints: ['F'] }), proc({ path: '/b' })],
    }));
    expect(checkPasses(check, { processes: [{ path: '/b', isRunning: true }] })).toBe(true);
    expect(failureValues(check, {})).toMatchObject({ semantic: 'AnyOf', expectedValue: [{ path: '/a', signerFingerprints: ['F'] }, { path: '/b', signerFingerprints: [] }] });
  });

  it('reads the other types by their API field names', () => {
    expect(postureCheckDef(definition({ typeId: 'OS', operatingSystems: [{ type: 'Windows', versions: ['>=10'] }] })).data)
      .toEqual({ operatingSystems: [{ type: 'Windows', versions: ['>=10'] }] });
    expect(postureCheckDef(definition({ typeId: 'MAC', macAddresses: ['aa:bb'] })).data).toEqual({ macAddresses: ['aa:bb'] });
    expect(postureCheckDef(definition({ typeId: 'DOMAIN', domains: ['corp'] })).data).toEqual({ domains: ['corp'] });
    expect(postureCheckDef(definition({ typeId: 'MFA', timeoutSeconds: 300, promptOnWake: true })).data)
      .toEqual({ timeoutSeconds: 300, promptOnWake: true, promptOnUnlock: false, ignoreLegacyEndpoints: false });
  });

  it('gives each granting policy its name and check ids, and the checks by id', () => {
    const groups = [
      { policyId: 'p1', policyName: 'strict', policyType: 'Dial', checks: [definition({ id: 'd', domains: ['corp'] })] },
      { policyId: 'p2', policyName: 'open', policyType: 'Bind', checks: [] },
    ];
    const policies = grantingPolicies(groups);
    expect(policies).toEqual([{ id: 'p1', name: 'strict', type: 'Dial', checkIds: ['d'] }, { id: 'p2', name: 'open', type: 'Bind', checkIds: [] }]);
    const refused = evaluatePosture(policies.filter((p) => p.type === 'Dial'), 'Dial', checksOf(groups), { domain: 'home' });
    expect(refused.failures).toEqual([{ policyId: 'p1', policyName: 'strict', checks: [{ postureCheckId: 'd', postureCheckName: 'check', postureCheckType: 'DOMAIN' }] }]);
  });
});

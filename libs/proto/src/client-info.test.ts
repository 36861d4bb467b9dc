import { describe, expect, it } from 'vitest';
import { envInfoOf, sdkInfoOf } from './client-info.js';

describe('envInfoOf / sdkInfoOf', () => {
  it('keeps the reported string fields, an empty one included, and only those', () => {
    // A message as the loader reads it: an unset optional field is absent, a set one has its oneof marker.
    expect(envInfoOf({ os: 'linux', _os: 'os', arch: '', _arch: 'arch' })).toEqual({ os: 'linux', arch: '' });
    expect(sdkInfoOf({ type: 'ziti-sdk-c', _type: 'type', version: '1.0.0', appId: undefined })).toEqual({ type: 'ziti-sdk-c', version: '1.0.0' });
  });

  it('leaves out what the API does not define or that is no string in a stored object', () => {
    expect(envInfoOf({ os: 'linux', osRelease: 6, kernel: 'x', hostname: null })).toEqual({ os: 'linux' });
    expect(sdkInfoOf({ appVersion: '2', extra: 'y', branch: ['main'] })).toEqual({ appVersion: '2' });
  });

  it('reads anything but an object as empty', () => {
    for (const v of [null, undefined, '{"os":"linux"}', 3]) {
      expect(envInfoOf(v)).toEqual({});
      expect(sdkInfoOf(v)).toEqual({});
    }
  });
});

import { describe, expect, it } from 'vitest';
import { rewriteToDefaultApi, servedPath } from './default-api.js';

const C = '/edge/client/v1';

describe('the client API as the default handler', () => {
  it.each([
    ['/', `${C}/`],
    ['/version', `${C}/version`],
    ['/authenticate', `${C}/authenticate`],
    ['/current-api-session', `${C}/current-api-session`],
    ['/authenticate/mfa', `${C}/authenticate/mfa`],
    ['/services/abc', `${C}/services/abc`],
    ['/edge/v1', C],
    ['/edge/v1/', C],
    ['/edge/v1/current-identity', `${C}/current-identity`],
    ['/.well-known/est/cacerts', `${C}/.well-known/est/cacerts`],
    ['//version', `${C}/version`],
    ['/version/', `${C}/version`],
    ['/edge/management/v1/identities/x//', '/edge/management/v1/identities/x'],
    ['/edge/management/v1//identities/x/services/', '/edge/management/v1/identities/x/services'],
  ])('serves %s as %s', (path, served) => {
    expect(servedPath(path)).toBe(served);
  });

  it.each([`${C}/services`, '/edge/management/v1/identities', '/edge/v1x', '/edge/other', '/fabric/v1/routers', '/.well-known/openid-configuration'])(
    'leaves %s alone',
    (path) => expect(servedPath(path)).toBe(path),
  );

  it('keeps the query string as it is', () => {
    expect(rewriteToDefaultApi('/authenticate?method=cert&x=/edge/v1')).toBe(`${C}/authenticate?method=cert&x=/edge/v1`);
    expect(rewriteToDefaultApi('/edge/v1/services?filter=name%3D%22a%22')).toBe(`${C}/services?filter=name%3D%22a%22`);
  });
});

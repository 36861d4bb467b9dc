import { describe, expect, it } from 'vitest';
import { selectClaim, tokenIdentity } from './token-enrollment.js';

const signer = { claimsProperty: 'email', enrollNameClaimsSelector: '', enrollAttributeClaimsSelector: '' };

describe('tokenIdentity', () => {
  it('names the identity after the id claim unless a name selector is set, and reads attributes from a string or an array', () => {
    expect(tokenIdentity(signer, { email: 'a@b' })).toEqual({ externalId: 'a@b', name: 'a@b', roleAttributes: [] });
    const s = { ...signer, enrollNameClaimsSelector: '/profile/name', enrollAttributeClaimsSelector: 'groups' };
    expect(tokenIdentity(s, { email: 'a@b', profile: { name: 'Ann' }, groups: ['x', '#bad', 'x', 7] })).toEqual({ externalId: 'a@b', name: 'Ann', roleAttributes: ['x'] });
    expect(tokenIdentity(s, { email: 'a@b', profile: { name: 'Ann' }, groups: 'solo' }).roleAttributes).toEqual(['solo']);
  });

  it('refuses a token without an id or a name', () => {
    expect(() => tokenIdentity(signer, {})).toThrow(expect.objectContaining({ code: 'INVALID_ENROLLMENT_TOKEN' }));
    expect(() => tokenIdentity({ ...signer, enrollNameClaimsSelector: 'nick' }, { email: 'a@b' })).toThrow(expect.objectContaining({ code: 'INVALID_ENROLLMENT_TOKEN' }));
  });
});

describe('selectClaim', () => {
  it('reads a top-level claim by name and nested ones by JSON pointer', () => {
    expect(selectClaim({ 'a/b': 1, a: { 'b/c': 2 } }, 'a/b')).toBe(1);
    expect(selectClaim({ a: { 'b/c': 2 } }, '/a/b~1c')).toBe(2);
    expect(selectClaim({ a: 'x' }, '/a/b')).toBeUndefined();
  });
});

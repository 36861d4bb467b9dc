import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { incomingContext, outgoingMetadata } from './metadata.js';
import { PRINCIPAL_KEY, encodePrincipal, type CallerPrincipal } from './principal.js';

const principal: CallerPrincipal = {
  identityId: 'id-1', name: 'Zoë ✓', isAdmin: false, apiSessionId: 'as-1', roleAttributes: ['eu'], permissions: [],
  configTypes: ['intercept.v1'], mfa: { required: true, complete: true, passedAt: '2026-01-01T00:00:00.000Z' },
};

describe('the caller principal in call metadata', () => {
  it('travels whole, whatever characters its name holds', () => {
    const md = outgoingMetadata({ requestId: 'r', actorId: 'id-1', principal });
    expect(incomingContext(md).ctx.principal).toEqual(principal);
  });

  it('is left out when malformed: not JSON, a missing field, a wrong type', () => {
    for (const bad of ['not json', JSON.stringify({ ...principal, apiSessionId: '' }), JSON.stringify({ ...principal, isAdmin: 'yes' }), JSON.stringify({ ...principal, mfa: undefined })]) {
      const md = new grpc.Metadata();
      md.set(PRINCIPAL_KEY, Buffer.from(bad));
      expect(incomingContext(md).ctx.principal).toBeUndefined();
    }
  });

  it('is decoded once per value: the same bytes give the same object, frozen so that no call changes it for the next', () => {
    const first = incomingContext(outgoingMetadata({ requestId: 'r1', principal })).ctx.principal;
    const again = incomingContext(outgoingMetadata({ requestId: 'r2', principal: { ...principal } })).ctx.principal;
    expect(again).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first!.mfa) && Object.isFrozen(first!.roleAttributes)).toBe(true);
    expect(encodePrincipal(first!)).toBe(encodePrincipal(again!));
  });

  it('is absent when the caller sent none', () => {
    expect(incomingContext(outgoingMetadata({ requestId: 'r' })).ctx.principal).toBeUndefined();
  });
});

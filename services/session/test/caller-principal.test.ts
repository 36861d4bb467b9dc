/**
 * Session creation and posture evaluation for a caller take its MFA state, API session and role
 * attributes from the principal in the call metadata, so they need neither the auth service
 * (unreachable here) nor the identity service; a principal that names another API session or
 * identity than the request is not used.
 */
import { runWithContext, type CallerPrincipal } from '@edge/rpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness.js';

describe('the caller principal in call metadata', () => {
  let h: Harness;
  const passedAt = new Date(Date.now() - 60_000).toISOString();
  const principal = (over: Partial<CallerPrincipal> = {}): CallerPrincipal => ({
    identityId: 'ann', name: 'ann', isAdmin: false, apiSessionId: 'api-ann', roleAttributes: ['dialers'], permissions: [], configTypes: [],
    mfa: { required: true, complete: true, passedAt }, ...over,
  });
  const create = (p: CallerPrincipal | undefined, apiSessionId = 'api-ann') => runWithContext({ requestId: 'r', principal: p }, () =>
    h.client.createSession({ apiSessionId, identityId: 'ann', serviceId: 'svc', type: 'Dial', tagsJson: '{}' }));

  beforeAll(async () => {
    // The auth service is nowhere: anything that would ask it fails.
    h = await createHarness({ EDGE_AUTH_GRPC_ADDR: '127.0.0.1:1' });
    // The identity service does not know ann: only her principal says who she is.
    h.world.services.set('svc', { roleAttributes: ['s'] });
    h.world.postureChecks.set('mfa-check', { typeId: 'MFA', data: { timeoutSeconds: -1 } });
    h.world.policies.push({ id: 'dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#dialers'], serviceRoles: ['#s'], checkIds: ['mfa-check'] });
    h.world.edgeRouters.push('er-1');
  });
  afterAll(async () => h?.close());

  it('creates a session behind an MFA check with the auth and identity services unasked', async () => {
    const s = await create(principal());
    expect(s).toMatchObject({ apiSessionId: 'api-ann', identityId: 'ann', serviceId: 'svc' });
  });

  it('refuses the MFA check when the principal says MFA is not complete', async () => {
    await expect(create(principal({ mfa: { required: true, complete: false } }))).rejects.toMatchObject({ code: 'INVALID_POSTURE' });
  });

  it('asks the owners when there is no principal, or it names another API session or identity', async () => {
    // the identity service, which does not know ann
    await expect(create(undefined)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(create(principal({ identityId: 'someone-else' }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // the auth service, which is unreachable, for the MFA state of the API session the request names
    await expect(create(principal({ apiSessionId: 'api-someone-else' }))).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('evaluates posture queries from the principal MFA state', async () => {
    const ask = (p: CallerPrincipal) => runWithContext({ requestId: 'r', principal: p }, () =>
      h.client.evaluatePostureQueries({ apiSessionId: 'api-ann', postureChecks: [{ id: 'mfa-check', name: 'mfa-check', typeId: 'MFA', timeoutSeconds: -1 }] }));
    expect((await ask(principal())).queries).toMatchObject([{ postureCheckId: 'mfa-check', isPassing: true }]);
    expect((await ask(principal({ mfa: { required: true, complete: false } }))).queries).toMatchObject([{ postureCheckId: 'mfa-check', isPassing: false }]);
  });
});

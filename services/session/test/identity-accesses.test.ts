/**
 * An identity's every access, held by the session service once it dials a second service, is
 * renewed in the background before its hold runs out, naming the version it holds: while the
 * policy service's tables stand there, the answer is "unchanged" and what is held stays in use;
 * once they moved, the new answer replaces it.
 */
import { randomUUID } from 'node:crypto';
import { SETTLE_MS } from '@edge/bus';
import { runWithContext, type CallerPrincipal } from '@edge/rpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, grantSessionServices, type Harness } from './harness.js';

const HOLD_MS = 2_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('an identity\'s every access, renewed', () => {
  let h: Harness;
  const principal = (n: number): CallerPrincipal => ({
    identityId: 'rita', name: 'rita', isAdmin: false, apiSessionId: `api-rita-${n}`, roleAttributes: ['dialers'], permissions: [], configTypes: [],
    mfa: { required: false, complete: false },
  });
  const create = (n: number, serviceId: string, type = 'Dial') => runWithContext({ requestId: randomUUID(), principal: principal(n) }, () => h.client.createSession({
    apiSessionId: `api-rita-${n}`, identityId: 'rita', serviceId, type, tagsJson: '{}',
  }));

  beforeAll(async () => {
    h = await createHarness({ EDGE_EVALUATION_CACHE_TTL_MS: String(HOLD_MS) });
    grantSessionServices(h.world);
    await sleep(SETTLE_MS);
  });
  afterAll(async () => h?.close());

  it('is confirmed by its version while the tables stand, and read anew once they moved', async () => {
    await create(1, 'svc');
    await create(2, 'svc-bind', 'Bind');
    expect(h.world.identityAccessAsks).toEqual([{ knownVersion: '', unchanged: false }]);
    // In the last fifth of the hold: answered from what is held, renewed in the background.
    await sleep(HOLD_MS * 0.85);
    expect((await create(3, 'svc')).edgeRouters.map((r) => r.id)).toEqual(['er-1', 'er-2']);
    await expect.poll(() => h.world.identityAccessAsks.length).toBe(2);
    expect(h.world.identityAccessAsks[1]).toMatchObject({ unchanged: true });
    expect(h.world.identityAccessAsks[1]!.knownVersion).not.toBe('');
    // Past the first hold's end, what was confirmed still answers: no call.
    await sleep(HOLD_MS * 0.3);
    const calls = h.world.identityAccessCalls;
    expect((await create(4, 'svc-bind', 'Bind')).serviceId).toBe('svc-bind');
    expect(h.world.identityAccessCalls).toBe(calls);

    // The tables move (an edge router added, no event): the next renewal gets the new answer.
    h.world.edgeRouters.push('er-3');
    try {
      // Used until it is renewed (in the last fifth of its hold) or asked for again (past it).
      let n = 5;
      await expect.poll(async () => {
        await create(n++, 'svc');
        return h.world.identityAccessAsks.length;
      }, { timeout: HOLD_MS * 2, interval: 100 }).toBe(3);
      expect(h.world.identityAccessAsks[2]).toMatchObject({ knownVersion: h.world.identityAccessAsks[1]!.knownVersion, unchanged: false });
      await expect.poll(async () => (await create(n++, 'svc-bind', 'Bind')).edgeRouters.map((r) => r.id)).toEqual(['er-1', 'er-2', 'er-3']);
    } finally {
      h.world.edgeRouters.pop();
    }
  });
});

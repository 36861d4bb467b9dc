/**
 * A session whose creation checked its access before a revocation and wrote it after the
 * revocation's re-evaluation had judged the sessions there were: the check and the write are
 * apart (a call to the policy service, or an access held, then a batched insert), so the pass
 * cannot see it. It is judged again by the follow-up pass, once every creation that could have
 * checked before the change has written (EDGE_EVALUATION_CACHE_TTL_MS + EDGE_GRPC_DEADLINE_MS).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { runWithContext, type CallerPrincipal } from '@edge/rpc';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type FakePolicy, type Harness } from './harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a revocation racing a session creation', () => {
  let h: Harness;
  beforeAll(async () => {
    // The follow-up pass comes 1.3 s after the first.
    h = await createHarness({ EDGE_EVALUATION_CACHE_TTL_MS: '300', EDGE_GRPC_DEADLINE_MS: '1000' });
  });
  afterAll(async () => h?.close());

  const who: CallerPrincipal = {
    identityId: 'late', name: 'late', isAdmin: false, apiSessionId: 'api-late', roleAttributes: ['late'], permissions: [], configTypes: [],
    mfa: { required: false, complete: false },
  };
  const policy: FakePolicy = { id: 'late-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#late'], serviceRoles: ['#late-svc'] };

  // regression: the session stayed until the periodic reconciliation came to it (a minute by
  // default), although the policy that granted it was gone before it was written
  it('ends a session checked before the revocation and written after its pass', async () => {
    h.world.services.set('svc-late', { roleAttributes: ['late-svc'], edgeRouters: ['er-late'] });
    h.world.identities.set('late', { roleAttributes: ['late'] });
    h.world.apiSessions.add('api-late');
    h.world.policies.push(policy);
    await sleep(300); // the start-up sweep is over

    // Writes to the sessions table wait until `release`: the creation checks its access, then waits at its insert.
    let release!: () => void;
    const released = new Promise<void>((resolve) => { release = resolve; });
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => { locked = resolve; });
    const table = /from ("[^"]+"\."sessions")/.exec(h.db.selectFrom('sessions').selectAll().compile().sql)![1]!;
    const holding = h.db.transaction().execute(async (trx) => {
      await sql`lock table ${sql.raw(table)} in share mode`.execute(trx);
      locked();
      await released;
    });
    await isLocked;
    const requestId = randomUUID();
    const creation = runWithContext({ requestId, principal: who }, () => h.client.createSession({
      apiSessionId: 'api-late', identityId: 'late', serviceId: 'svc-late', type: 'Dial', tagsJson: '{}',
    }));
    await vi.waitFor(() => expect(h.world.calls.some((c) => c.requestId === requestId && c.method === 'GetServiceAccesses')).toBe(true), { timeout: 5_000 });
    await vi.waitFor(async () => {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like 'with "ins"%'`.execute(h.db);
      expect(rows[0]!.n).toBe(1);
    }, { timeout: 5_000 });

    // The policy goes; its pass judges the sessions there are (none of this identity yet).
    h.world.policies = h.world.policies.filter((p) => p.id !== policy.id);
    const asked = h.world.calls.length;
    await h.bus.publish('edge.policy.service-policy.deleted', {
      id: policy.id, name: policy.id, before: { semantic: 'AnyOf', type: 'Dial', identityRoles: ['#late'], serviceRoles: ['#late-svc'], postureCheckRoles: [] },
    });
    await vi.waitFor(() => expect(h.world.calls.slice(asked).some((c) => c.method === 'MatchServices')).toBe(true), { timeout: 5_000 });
    await sleep(200);

    release();
    await holding;
    const session = await creation;
    expect(session.identityId).toBe('late');
    expect(await h.sessionIds()).toContain(session.id);
    await vi.waitFor(async () => expect(await h.sessionIds()).not.toContain(session.id), { timeout: 5_000 });
  });
});

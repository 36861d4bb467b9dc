import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryBus, type Bus } from '@edge/bus';
import type { Clients } from '../clients.js';
import { createIdentityListing, createPerIdentity, type IdentityListing } from './identity-listing.js';
import { SETTLE_MS } from './list-changes.js';

/** Lets the bus deliver what was published. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('values kept per identity', () => {
  it('asks only for the identities it lacks, and keeps "none" as an answer', async () => {
    const asked: string[][] = [];
    const kept = createPerIdentity(async (ids) => {
      asked.push([...ids]);
      return new Map(ids.filter((id) => id !== 'b').map((id) => [id, `v-${id}`]));
    }, 60_000);
    expect(await kept.getMany(['a', 'b'])).toEqual(new Map([['a', 'v-a']]));
    expect(await kept.getMany(['a', 'b', 'c'])).toEqual(new Map([['a', 'v-a'], ['c', 'v-c']]));
    expect(asked).toEqual([['a', 'b'], ['c']]);
  });

  it('asks again once dropped, all dropped, or aged out', async () => {
    let t = 0;
    let n = 0;
    const kept = createPerIdentity(async (ids) => new Map(ids.map((id) => [id, ++n])), 1_000, () => t);
    await kept.getMany(['a', 'b']);
    kept.drop('a');
    expect(await kept.getMany(['a', 'b'])).toEqual(new Map([['a', 3], ['b', 2]]));
    kept.dropAll();
    expect(await kept.getMany(['a'])).toEqual(new Map([['a', 4]]));
    t = 999;
    expect(await kept.getMany(['a'])).toEqual(new Map([['a', 4]]));
    t = 1_000;
    expect(await kept.getMany(['a'])).toEqual(new Map([['a', 5]]));
  });

  /** Values numbered by look-up; the first look-up waits until released. */
  function gated() {
    let n = 0;
    let release: (() => void) | undefined;
    const kept = createPerIdentity(async (ids) => {
      const at = ++n;
      if (at === 1) await new Promise<void>((r) => { release = r; });
      return new Map(ids.map((id) => [id, at]));
    }, 60_000);
    return { kept, release: () => release!() };
  }

  it('answers but does not keep what was dropped while it was being asked for', async () => {
    const { kept, release } = gated();
    const first = kept.getMany(['a', 'b']);
    await settle();
    kept.drop('a');
    release();
    expect(await first).toEqual(new Map([['a', 1], ['b', 1]]));
    // b was not dropped and is kept; a is asked for again.
    expect(await kept.getMany(['a', 'b'])).toEqual(new Map([['a', 2], ['b', 1]]));
  });

  it('remembers drops only while a look-up is under way, and no more than it keeps', async () => {
    const { kept, release } = gated();
    // The events of a network's logins keep coming whether or not anyone lists identities.
    for (let i = 0; i < 60_000; i++) kept.drop(`idle-${i}`);
    expect(kept.remembered).toBe(0);
    const reading = kept.getMany(['a', 'b']);
    await settle();
    for (let i = 0; i < 60_000; i++) kept.drop(`busy-${i}`);
    expect(kept.remembered).toBeLessThanOrEqual(50_000);
    release();
    await reading;
    expect(kept.remembered).toBe(0);
    // Past the bound the look-up keeps nothing, as after a drop of everything.
    expect(kept.size).toBe(0);
  });

  it('keeps nothing asked for across a drop of everything', async () => {
    const { kept, release } = gated();
    const first = kept.getMany(['a']);
    await settle();
    kept.dropAll();
    release();
    await first;
    expect(kept.size).toBe(0);
  });
});

/** Stand-ins for the three owners, counting calls. */
function owners() {
  const calls = { list: 0, summaries: 0, enrollments: 0 };
  let disabledUntil: string | undefined;
  let gate: Promise<void> | undefined;
  const clients = {
    identity: {
      listIdentities: async () => {
        calls.list++;
        return {
          identities: [{ id: 'i1', disabled: disabledUntil !== undefined, disabledUntil }, { id: 'i2', disabled: false }],
          meta: { totalCount: 2, limit: 10, offset: 0, filterableFields: [] },
        };
      },
    },
    auth: {
      getIdentityAuthSummaries: async ({ identityIds }: { identityIds: string[] }) => {
        calls.summaries++;
        await gate;
        return { summaries: identityIds.map((identityId) => ({ identityId, hasApiSession: calls.summaries > 1 })) };
      },
    },
    pki: {
      getEnrollmentsOf: async ({ identityIds }: { identityIds: string[] }) => {
        calls.enrollments++;
        return { enrollments: identityIds.map((identityId) => ({ id: `e-${identityId}-${calls.enrollments}`, identityId })) };
      },
    },
  } as unknown as Clients;
  return {
    clients, calls,
    lockOut: (until: string | undefined) => { disabledUntil = until; },
    /** Makes the auth summaries wait until the returned function is called. */
    pauseSummaries: () => {
      let release!: () => void;
      gate = new Promise((r) => { release = r; });
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

describe('the identity listing', () => {
  let bus: Bus | undefined;
  let listing: IdentityListing | undefined;
  afterEach(async () => {
    await listing?.stop();
    await bus?.close();
  });

  async function started(holdMs = 10_000) {
    bus = createMemoryBus();
    const o = owners();
    listing = createIdentityListing(o.clients, bus, holdMs);
    await listing.start();
    // No hold is granted in the second after a change: start() counts as one.
    await new Promise((r) => setTimeout(r, SETTLE_MS + 10));
    return o;
  }
  const read = async (l: IdentityListing) => {
    const page = await l.page({ filter: 'true' });
    const ids = page.identities.map((i) => i.id);
    return { page, summaries: await l.summaries(ids), enrollments: await l.enrollments(ids) };
  };

  // regression: each page of a burst of first reads asked the auth and pki services on its own
  it('asks each owner once for the identities of pages read together, and alone for a page of every row', async () => {
    const { calls } = await started();
    const [a, b] = await Promise.all([listing!.summaries(['a1', 'a2']), listing!.summaries(['b1'])]);
    const [ea, eb] = await Promise.all([listing!.enrollments(['a1']), listing!.enrollments(['b1', 'b2'])]);
    expect(calls).toEqual({ list: 0, summaries: 1, enrollments: 1 });
    expect([...a.keys()]).toEqual(['a1', 'a2']);
    expect([...b.keys()]).toEqual(['b1']);
    expect(ea.get('a1')).toEqual([{ id: 'e-a1-1', identityId: 'a1' }]);
    expect([...eb.keys()]).toEqual(['b1', 'b2']);
    const every = Array.from({ length: 501 }, (_, i) => `all-${i}`);
    const [all, c] = await Promise.all([listing!.summaries(every), listing!.summaries(['c1'])]);
    expect(calls.summaries).toBe(3);
    expect(all.size).toBe(501);
    expect([...c.keys()]).toEqual(['c1']);
  }, 10_000);

  it('answers a second read of the same page without a call', async () => {
    const { calls } = await started();
    await read(listing!);
    await read(listing!);
    expect(calls).toEqual({ list: 1, summaries: 1, enrollments: 1 });
    await listing!.page({ filter: 'name = "x"' });
    expect(calls.list).toBe(2);
  }, 10_000);

  it('asks for the page again after an identity event, and for one identity\'s summary after its auth event', async () => {
    const { calls } = await started();
    await read(listing!);
    await bus!.publish('edge.identity.identity.updated', { id: 'i9' });
    await bus!.publish('edge.auth.api-session.created', { id: 's', identityId: 'i1' });
    await settle();
    const again = await read(listing!);
    expect(calls).toEqual({ list: 2, summaries: 2, enrollments: 1 });
    expect(again.summaries.get('i1')?.hasApiSession).toBe(true);
    expect(again.summaries.get('i2')?.hasApiSession).toBe(false);
  }, 10_000);

  it('drops summaries on every auth subject and enrollments on pki\'s, by the identity named', async () => {
    const { calls } = await started();
    await read(listing!);
    const subjects = ['edge.auth.api-session.deleted', 'edge.auth.authenticator.created', 'edge.auth.authenticator.updated', 'edge.auth.authenticator.deleted', 'edge.auth.mfa.verified', 'edge.auth.mfa.deleted'];
    for (const [n, subject] of subjects.entries()) {
      await bus!.publish(subject, { id: 'x', identityId: 'i2' });
      await settle();
      await read(listing!);
      expect(calls.summaries).toBe(n + 2);
    }
    expect(calls.enrollments).toBe(1);
    for (const [n, subject] of ['edge.pki.enrollment.created', 'edge.pki.enrollment.updated', 'edge.pki.enrollment.deleted'].entries()) {
      await bus!.publish(subject, { id: 'e', identityId: 'i1', edgeRouterId: null, transitRouterId: null });
      await settle();
      expect((await read(listing!)).enrollments.get('i1')![0]!.id).toBe(`e-i1-${n + 2}`);
    }
    expect(calls.summaries).toBe(subjects.length + 1);
    // An event of a router's enrollment, or about another identity, changes nothing kept here.
    await bus!.publish('edge.pki.enrollment.created', { id: 'e', identityId: null, edgeRouterId: 'r1', transitRouterId: null });
    await bus!.publish('edge.auth.api-session.created', { id: 's', identityId: 'other' });
    await settle();
    await read(listing!);
    expect(calls).toMatchObject({ summaries: subjects.length + 1, enrollments: 4 });
  }, 10_000);

  it('forgets a deleted identity\'s summary and enrollments, and everything on an administrator\'s write', async () => {
    const { calls } = await started();
    await read(listing!);
    await bus!.publish('edge.identity.identity.deleted', { id: 'i1' });
    await settle();
    await read(listing!);
    expect(calls).toEqual({ list: 2, summaries: 2, enrollments: 2 });
    listing!.changed();
    await read(listing!);
    expect(calls).toEqual({ list: 3, summaries: 3, enrollments: 3 });
  }, 10_000);

  it('holds a page that shows a lockout no longer than the lockout', async () => {
    const o = await started();
    o.lockOut(new Date(Date.now() + 300).toISOString());
    await listing!.page({});
    await listing!.page({});
    expect(o.calls.list).toBe(1);
    await new Promise((r) => setTimeout(r, 350));
    await listing!.page({});
    expect(o.calls.list).toBe(2);
  }, 10_000);

  it('holds no page when holding is off, but still keeps summaries and enrollments', async () => {
    const { calls } = await started(0);
    await read(listing!);
    await read(listing!);
    expect(calls).toEqual({ list: 2, summaries: 1, enrollments: 1 });
  }, 10_000);

  it('sends the bytes rendered before while the page is held and nothing kept was dropped', async () => {
    const { calls } = await started();
    let renders = 0;
    const render = () => Buffer.from(`body-${++renders}`);
    const first = await listing!.rendered({}, 'admin', render);
    expect(await listing!.rendered({}, 'admin', render)).toBe(first);
    expect(renders).toBe(1);
    // Another variant is rendered on its own, from what is kept.
    expect((await listing!.rendered({}, 'other', render)).toString()).toBe('body-2');
    expect(calls).toEqual({ list: 1, summaries: 1, enrollments: 1 });
    // A drop of any identity's summary renders again, asking only for what was dropped.
    await bus!.publish('edge.auth.authenticator.updated', { id: 'a', identityId: 'i2' });
    await settle();
    expect((await listing!.rendered({}, 'admin', render)).toString()).toBe('body-3');
    expect(calls).toEqual({ list: 1, summaries: 2, enrollments: 1 });
    expect((await listing!.rendered({}, 'admin', render)).toString()).toBe('body-3');
  }, 10_000);

  it('keeps no body rendered from what was dropped while it was being read', async () => {
    const { calls, pauseSummaries } = await started();
    let renders = 0;
    const render = () => Buffer.from(`body-${++renders}`);
    await listing!.page({});
    // The drop lands while the summaries are being asked for.
    const release = pauseSummaries();
    const reading = listing!.rendered({}, 'admin', render);
    await bus!.publish('edge.pki.enrollment.created', { id: 'e', identityId: 'i1' });
    await settle();
    release();
    await reading;
    expect(calls).toEqual({ list: 1, summaries: 1, enrollments: 1 });
    await listing!.rendered({}, 'admin', render);
    expect(renders).toBe(2);
    expect(calls).toEqual({ list: 1, summaries: 1, enrollments: 2 });
  }, 10_000);
});

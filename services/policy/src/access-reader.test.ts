/**
 * How the access reader uses its parts, over a store standing in for the database: parts are
 * shared, read once however many accesses need them at once, used only at the version read for
 * the access, and never mixed across versions.
 */
import { describe, expect, it } from 'vitest';
import { createAccessReader } from './access-reader.js';
import type { AccessPartsStore, IdentityPart, RouterList, ServicePart } from './store/access-parts.js';

/** A store at `state.version`, counting its reads. */
function fakeStore(state: { version: number }) {
  const reads = { version: 0, identity: 0, service: 0, serviceStatements: 0, routers: 0 };
  const store: AccessPartsStore = {
    async version() {
      reads.version++;
      return state.version;
    },
    async identity(): Promise<IdentityPart> {
      reads.identity++;
      return { version: state.version, policyTypes: new Map([['p1', 'Dial']]), routerIds: new Set(['r1']) };
    },
    async services(ids: readonly string[]): Promise<ServicePart[]> {
      reads.service += ids.length;
      reads.serviceStatements++;
      // A statement takes a while: it sees the tables as they are when it runs.
      await new Promise((resolve) => setImmediate(resolve));
      return ids.map((id) => ({ version: state.version, service: { id, name: id }, policies: [{ id: 'p1', name: 'p1', type: 'Dial', checks: [] }], routerIds: new Set(['r1']) }));
    },
    async routers(): Promise<RouterList> {
      reads.routers++;
      return { version: state.version, routers: [] };
    },
  };
  return { store, reads };
}

const caller = { identityId: 'i1', roleAttributes: ['a'] };

describe('the access reader', () => {
  it('reads one identity part for many accesses asked at once, and the version once for all of them', async () => {
    const { store, reads } = fakeStore({ version: 1 });
    const reader = createAccessReader(store);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => reader.read(caller, `s${i}`)));
    expect(answers.every((a) => a?.grant.permissions[0] === 'Dial')).toBe(true);
    // The twenty service parts in one statement.
    expect(reads).toMatchObject({ version: 1, identity: 1, service: 20, serviceStatements: 1 });
  });

  it('uses kept parts while the version stands, and reads them again once it moved', async () => {
    const state = { version: 1 };
    const { store, reads } = fakeStore(state);
    const reader = createAccessReader(store);
    await reader.read(caller, 's1');
    await reader.read(caller, 's1');
    expect(reads).toMatchObject({ version: 2, identity: 1, service: 1 });
    state.version = 2;
    await reader.read(caller, 's1');
    expect(reads).toMatchObject({ version: 3, identity: 2, service: 2 });
  });

  it('reads again the parts older than the newest when a change lands between them', async () => {
    const state = { version: 1 };
    const { store, reads } = fakeStore(state);
    // The version moves just after the identity part is read: the service part is read at the newer one.
    const identity = store.identity.bind(store);
    let moved = false;
    store.identity = async (...args) => {
      const part = await identity(...args);
      if (!moved) {
        moved = true;
        state.version = 2;
      }
      return part;
    };
    const reader = createAccessReader(store);
    const answer = await reader.read(caller, 's1');
    expect(answer?.grant.permissions).toEqual(['Dial']);
    // The identity part of version 1 is read again at 2; the service part was already of 2.
    expect(reads).toMatchObject({ identity: 2, service: 1 });
  });

  it('keeps at most maxParts parts of a kind and maxRouters routers, the oldest going first', async () => {
    const { store, reads } = fakeStore({ version: 1 });
    store.routers = async (ids) => {
      reads.routers++;
      return { version: 1, routers: ids.map((id) => ({ id }) as never) };
    };
    const reader = createAccessReader(store, { maxParts: 2, maxRouters: 1 });
    const wanted = { from: 'model' as const, routers: true, counts: false };
    for (const id of ['s1', 's2', 's3', 's1']) await reader.read(caller, id, wanted);
    // s1 went when s3 came; the one-router list is kept, a list of two would not be.
    expect(reads).toMatchObject({ service: 4, routers: 1 });
    store.identity = async () => ({ version: 1, policyTypes: new Map([['p1', 'Dial']]), routerIds: new Set(['r1', 'r2']) });
    store.services = async (ids) => ids.map((id) => ({ version: 1, service: { id, name: id }, policies: [{ id: 'p1', name: 'p1', type: 'Dial', checks: [] }], routerIds: new Set(['r1', 'r2']) }));
    const other = { identityId: 'i9', roleAttributes: [] };
    expect((await reader.read(other, 's4', wanted))?.routers?.edgeRouters).toHaveLength(2);
    await reader.read(other, 's4', wanted);
    expect(reads.routers).toBe(3);
  });

  it('reads at most four identity parts and four router lists at once, however many callers ask together', async () => {
    const { store, reads } = fakeStore({ version: 1 });
    const under = { identity: 0, routers: 0 };
    const most = { identity: 0, routers: 0 };
    /** `read` counted while under way, taking a while as a statement does. */
    const counted = <A extends unknown[], T>(kind: 'identity' | 'routers', read: (...args: A) => Promise<T>) => async (...args: A) => {
      most[kind] = Math.max(most[kind], ++under[kind]);
      await new Promise((resolve) => setTimeout(resolve, 1));
      try {
        return await read(...args);
      } finally {
        under[kind]--;
      }
    };
    store.identity = counted('identity', async (id: string) => ({ version: 1, policyTypes: new Map([['p1', 'Dial']]), routerIds: new Set([`r-${id}`]) }));
    store.services = async (ids) => ids.map((id) => ({ version: 1, service: { id, name: id }, policies: [{ id: 'p1', name: 'p1', type: 'Dial', checks: [] }], routerIds: new Set(Array.from({ length: 200 }, (_, i) => `r-m${i}`)) }));
    store.routers = counted('routers', store.routers.bind(store));
    const reader = createAccessReader(store);
    const wanted = { from: 'model' as const, routers: true, counts: false };
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => reader.read({ identityId: `m${i}`, roleAttributes: [] }, 's1', wanted)));
    expect(answers.every((a) => a?.grant.permissions[0] === 'Dial')).toBe(true);
    // Each caller its own identity part and its own one-router list, read in turn.
    expect(reads.routers).toBe(200);
    expect(most).toEqual({ identity: 4, routers: 4 });
  });

  it('reads no edge router when nothing is granted and only a grant is wanted', async () => {
    const { store, reads } = fakeStore({ version: 1 });
    const reader = createAccessReader(store);
    const ungranted = { identityId: 'i2', roleAttributes: [] };
    store.identity = async () => ({ version: 1, policyTypes: new Map(), routerIds: new Set(['r1']) });
    const answer = await reader.read(ungranted, 's1', { from: 'model' as const, routers: true, counts: false }, true);
    expect(answer?.grant.permissions).toEqual([]);
    expect(reads.routers).toBe(0);
  });
});

describe('reading access parts ahead', () => {
  const wanted = { from: 'model' as const, routers: true, counts: false };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('reads the services asked to be warmed a page at a time, so their accesses read no service part', async () => {
    const { store, reads } = fakeStore({ version: 1 });
    const reader = createAccessReader(store, { settleMs: 0 });
    reader.warm(Array.from({ length: 450 }, (_, i) => `s${i}`));
    await reader.settled();
    expect(reads).toMatchObject({ service: 450, serviceStatements: 3 });
    expect((await reader.read(caller, 's7'))?.grant.permissions).toEqual(['Dial']);
    expect((await reader.read(caller, 's449'))?.grant.permissions).toEqual(['Dial']);
    expect(reads).toMatchObject({ service: 450, serviceStatements: 3, identity: 1 });
    reader.stop();
  });

  it('reads again the parts a change made stale once the tables settled, so the next accesses wait for none', async () => {
    const state = { version: 1 };
    const { store, reads } = fakeStore(state);
    const reader = createAccessReader(store, { settleMs: 30 });
    for (const id of ['s1', 's2']) await reader.read(caller, id, wanted);
    expect(reads).toMatchObject({ identity: 1, service: 2, routers: 1 });
    state.version = 2;
    await reader.changed();
    // Nothing yet: the tables may still be changing.
    expect(reads).toMatchObject({ identity: 1, service: 2, routers: 1 });
    await reader.settled();
    expect(reads).toMatchObject({ identity: 2, service: 4, routers: 2 });
    for (const id of ['s1', 's2']) expect((await reader.read(caller, id, wanted))?.routers?.edgeRouters).toEqual([]);
    // Only the version was read for them.
    expect(reads).toMatchObject({ identity: 2, service: 4, routers: 2 });
    reader.stop();
  });

  it('reads nothing ahead while changes keep coming', async () => {
    const state = { version: 1 };
    const { store, reads } = fakeStore(state);
    const reader = createAccessReader(store, { settleMs: 60 });
    await reader.read(caller, 's1');
    for (let i = 0; i < 6; i++) {
      state.version++;
      await reader.changed();
      await sleep(20);
    }
    expect(reads).toMatchObject({ identity: 1, service: 1 });
    await reader.settled();
    // One read each of what was kept, at the last version.
    expect(reads).toMatchObject({ identity: 2, service: 2 });
    reader.stop();
  });

  it('keeps no part read ahead that a newer change overtook: its key waits for the next round', async () => {
    const state = { version: 1 };
    const { store, reads } = fakeStore(state);
    const reader = createAccessReader(store, { settleMs: 0 });
    const services = store.services.bind(store);
    let overtaken = false;
    store.services = async (ids) => {
      const parts = await services(ids);
      if (!overtaken) {
        // The read saw version 1; version 2 lands and is seen before the read is answered.
        overtaken = true;
        state.version = 2;
        await reader.changed();
      }
      return parts;
    };
    reader.warm(['s1']);
    await reader.settled();
    // Read at 1 (not kept), then again at 2.
    expect(reads.service).toBe(2);
    await reader.read(caller, 's1');
    expect(reads.service).toBe(2);
    reader.stop();
  });

  it('tells a failed read ahead and leaves its parts to be read when asked for', async () => {
    const { store, reads } = fakeStore({ version: 1 });
    const warned: unknown[] = [];
    const log = { warn: (o: unknown) => warned.push(o) } as never;
    const reader = createAccessReader(store, { settleMs: 0, log });
    const services = store.services.bind(store);
    store.services = async () => {
      throw new Error('connection lost');
    };
    reader.warm(['s1']);
    await reader.settled();
    expect(warned).toHaveLength(1);
    store.services = services;
    expect((await reader.read(caller, 's1'))?.grant.permissions).toEqual(['Dial']);
    expect(reads.service).toBe(1);
    reader.stop();
  });

  it('tells nothing of a read ahead that the stop cut short', async () => {
    const { store } = fakeStore({ version: 1 });
    const warned: unknown[] = [];
    const reader = createAccessReader(store, { settleMs: 0, log: { warn: (o: unknown) => warned.push(o) } as never });
    store.services = async () => {
      reader.stop();
      throw new Error('the pool was closed');
    };
    reader.warm(['s1', ...Array.from({ length: 300 }, (_, i) => `s${i + 2}`)]);
    // Settled though keys still wait: nothing more will be read.
    await reader.settled();
    expect(warned).toEqual([]);
  });

  it('reads nothing ahead once stopped', async () => {
    const { store, reads } = fakeStore({ version: 1 });
    const reader = createAccessReader(store, { settleMs: 10 });
    reader.warm(['s1', 's2']);
    reader.stop();
    await reader.settled();
    await sleep(30);
    expect(reads.service).toBe(0);
  });
});

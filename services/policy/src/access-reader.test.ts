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

/**
 * Evaluated service lists are cached, and every change of what they depend on empties the
 * cache: a change made here at once, one announced by another replica as soon as its event
 * arrives. Rows written behind the service's back show how long an answer is kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h?.close());

const query = { limit: 500, offset: 0, filter: '', sort: '', roleFilter: [], roleSemantic: '' };
const list = async (identityId: string, roleAttributes: string[]) =>
  (await h.client.listServicesForIdentity({ identityId, roleAttributes, configTypes: [], query })).services.map((s) => s.name).sort();
const sneakIn = (name: string, attrs: string[]) =>
  sql`insert into ${sql.id(h.schema, 'services')} (id, name, role_attributes) values (${name}, ${name}, ${attrs})`.execute(h.db);
const until = async (probe: () => Promise<boolean>) => {
  const end = Date.now() + 5_000;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error('not within 5 s');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('the evaluated service list cache', () => {
  it('answers a repeated list from the cache until a change made here empties it', async () => {
    await sneakIn('cache-a', ['cached']);
    await h.client.createServicePolicy({ fields: { name: 'cache-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#cache-team'], serviceRoles: ['#cached'], postureCheckRoles: [], tagsJson: '{}' } });
    expect(await list('c1', ['cache-team'])).toEqual(['cache-a']);
    // Written behind the service's back: the cached answer does not know of it.
    await sneakIn('cache-b', ['cached']);
    expect(await list('c1', ['cache-team'])).toEqual(['cache-a']);
    // Another caller (other attributes) is another entry, evaluated afresh.
    expect(await list('c2', ['cache-team', 'other'])).toEqual(['cache-a', 'cache-b']);
    // Any change through this service forgets every answer before it returns.
    await h.client.createService({ fields: { name: 'cache-c', encryptionRequired: true, maxIdleTimeMillis: 0, terminatorStrategy: '', roleAttributes: ['cached'], configs: [], tagsJson: '{}' } });
    expect(await list('c1', ['cache-team'])).toEqual(['cache-a', 'cache-b', 'cache-c']);
  });

  it('forgets its answers when another replica announces a change', async () => {
    expect(await list('c3', ['cache-team'])).toHaveLength(3);
    await sneakIn('cache-d', ['cached']);
    expect(await list('c3', ['cache-team'])).toHaveLength(3);
    // What a replica publishes after its own write.
    await h.bus.publish('edge.policy.service.created', { id: 'cache-d', name: 'cache-d' });
    await until(async () => (await list('c3', ['cache-team'])).includes('cache-d'));
  });
});

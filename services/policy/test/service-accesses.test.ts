/**
 * GetServiceAccesses answers many accesses in one call, each as GetServiceAccess would, in the
 * order asked, with NOT_FOUND as `notFound`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { policy } from '@edge/proto';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
const noTags = '{}';
const ask = (identityId: string, roleAttributes: string[], serviceId: string, grantedOnly = true): policy.GetServiceAccessRequest =>
  ({ identityId, roleAttributes, serviceId, grantedOnly, edgeRouters: true, edgeRouterCounts: false });

beforeAll(async () => {
  h = await createHarness();
  for (const name of ['acc-a', 'acc-b']) {
    await h.client.createService({ fields: { name, encryptionRequired: true, maxIdleTimeMillis: 0, terminatorStrategy: '', roleAttributes: [name], configs: [], tagsJson: noTags } });
  }
  await h.client.createServicePolicy({ fields: { name: 'acc-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#acc-team'], serviceRoles: ['#acc-a'], postureCheckRoles: [], tagsJson: noTags } });
}, 60_000);
afterAll(() => h?.close());

describe('GetServiceAccesses', () => {
  it('answers each request as GetServiceAccess does, in order, with not_found for what it refuses', async () => {
    const services = (await h.client.listServices({ query: { limit: 10, offset: 0, filter: 'name contains "acc-"', sort: 'name', roleFilter: [], roleSemantic: '' }, configTypes: [] })).services;
    const [a, b] = services.map((s) => s.id);
    const asks = [ask('m1', ['acc-team'], a!), ask('m1', ['acc-team'], b!), ask('m2', ['other'], a!), ask('m1', ['acc-team'], 'no-such-service'), ask('m2', ['other'], b!, false)];
    const { results } = await h.client.getServiceAccesses({ requests: asks });
    expect(results.map((r) => r.result)).toEqual(['access', 'notFound', 'notFound', 'notFound', 'access']);
    expect(results[0]!.access).toEqual(await h.client.getServiceAccess(asks[0]!));
    expect(results[0]!.access!.permissions).toEqual(['Dial']);
    expect(results[4]!.access).toMatchObject({ serviceId: b, permissions: [] });
  });

  it('refuses a batch of more than 1000 requests whole, naming the field', async () => {
    const asks = Array.from({ length: 1001 }, (_, i) => ask(`m${i}`, ['acc-team'], 'no-such-service'));
    await expect(h.client.getServiceAccesses({ requests: asks })).rejects.toMatchObject({ code: 'COULD_NOT_VALIDATE', fieldCause: { field: 'requests', value: 1001 } });
    expect((await h.client.getServiceAccesses({ requests: asks.slice(0, 1000) })).results).toHaveLength(1000);
  });

  it('answers an empty batch with no results', async () => {
    expect((await h.client.getServiceAccesses({ requests: [] })).results).toEqual([]);
  });
});

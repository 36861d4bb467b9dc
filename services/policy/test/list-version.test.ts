/**
 * An evaluated service list or its digest whose time ran out is kept for another while when the
 * tables it was read from have not moved (src/evaluation-cache.ts). That is safe only if every
 * table the list is read from moves the version: each is changed here behind the service's back
 * (no event), and the answer must show the change once the short cache time has run out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createHarness, type Harness } from './harness.js';

const TTL_MS = 200;
const noTags = '{}';
const caller = { identityId: 'lv-identity', roleAttributes: ['lv-team'] };
const query = { limit: 500, offset: 0, filter: '', sort: '', roleFilter: [], roleSemantic: '' };

let h: Harness;
let configId = '';
let serviceId = '';
let typeId = '';
beforeAll(async () => {
  h = await createHarness({ env: { EDGE_EVALUATION_CACHE_TTL_MS: String(TTL_MS) } });
  const type = await h.client.createConfigType({ fields: { name: 'lv-type', schemaJson: '{}', tagsJson: noTags, target: '' } });
  typeId = type.id;
  const config = await h.client.createConfig({ fields: { name: 'lv-config', configTypeId: type.id, dataJson: '{"port":1}', tagsJson: noTags } });
  configId = config.id;
  const svc = await h.client.createService({
    fields: { name: 'lv-svc', encryptionRequired: true, maxIdleTimeMillis: 0, terminatorStrategy: '', roleAttributes: ['lv'], configs: [config.id], tagsJson: noTags },
  });
  serviceId = svc.id;
  await h.client.createPostureCheck({ fields: { name: 'lv-check', typeId: 'DOMAIN', roleAttributes: ['lv-check'], dataJson: '{"domains":["a.example"]}', tagsJson: noTags } });
  await h.client.createServicePolicy({
    fields: { name: 'lv-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#lv-team'], serviceRoles: ['#lv'], postureCheckRoles: ['#lv-check'], tagsJson: noTags },
  });
});
afterAll(async () => h?.close());

const digest = async () => (await h.client.getServiceListDigest(caller)).digest;
const list = async () => (await h.client.listServicesForIdentity({ ...caller, configTypes: ['all'], query, policyType: '' })).services;
const t = (name: string) => sql.id(h.schema, name);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `read` until it differs from `before`, for several cache times; what it read last. */
async function changedFrom<T>(read: () => Promise<T>, before: T): Promise<T> {
  const end = Date.now() + 10 * TTL_MS + 2_000;
  for (;;) {
    const now = await read();
    if (JSON.stringify(now) !== JSON.stringify(before) || Date.now() > end) return now;
    await sleep(TTL_MS / 4);
  }
}

describe('a page asked for with its digest', () => {
  it('comes with the digest GetServiceListDigest answers, whatever config types the page renders', async () => {
    for (const configTypes of [[], ['all'], ['lv-type']]) {
      const page = await h.client.listServicesForIdentity({ ...caller, configTypes, query, policyType: '', withDigest: true });
      expect(page.digest, configTypes.join()).toEqual(await h.client.getServiceListDigest(caller));
      expect(page.services.map((s) => s.name)).toEqual(['lv-svc']);
    }
    // Without it, none.
    expect((await h.client.listServicesForIdentity({ ...caller, configTypes: [], query, policyType: '' })).digest).toBeNull();
  });
});

describe('an evaluated list kept past its time while its tables stand still', () => {
  it('is the same answer while nothing changed', async () => {
    const first = await digest();
    await sleep(TTL_MS * 2);
    expect(await digest()).toBe(first);
  });

  it('shows a change written behind the service\'s back to any table the list is read from', async () => {
    const changes = [
      sql`update ${t('configs')} set data = '{"port":2}' where id = ${configId}`,
      sql`update ${t('config_types')} set name = 'lv-type-renamed' where id = ${typeId}`,
      sql`update ${t('services')} set name = 'lv-svc-renamed' where id = ${serviceId}`,
      sql`update ${t('posture_checks')} set data = '{"domains":["b.example"]}' where name = 'lv-check'`,
      sql`update ${t('service_policies')} set posture_check_roles = array[]::text[], posture_check_attrs = array[]::text[] where name = 'lv-dial'`,
      sql`delete from ${t('service_configs')} where service_id = ${serviceId}`,
    ];
    for (const change of changes) {
      const before = await digest();
      // Kept past its time at least once before the change.
      await sleep(TTL_MS * 2);
      expect(await digest()).toBe(before);
      await change.execute(h.db);
      expect(await changedFrom(digest, before), change.compile(h.db).sql).not.toBe(before);
    }
  });

  it('shows a config changed behind the service\'s back in the list itself', async () => {
    await h.client.updateService({
      id: serviceId,
      fields: { name: 'lv-svc', encryptionRequired: true, maxIdleTimeMillis: 0, terminatorStrategy: '', roleAttributes: ['lv'], configs: [configId], tagsJson: noTags },
    });
    const configOf = async () => (await list()).find((s) => s.id === serviceId)?.configJson;
    const before = await configOf();
    expect(before).toContain('"port":2');
    await sleep(TTL_MS * 2);
    expect(await configOf()).toBe(before);
    await sql`update ${t('configs')} set data = '{"port":3}' where id = ${configId}`.execute(h.db);
    expect(await changedFrom(configOf, before)).toContain('"port":3');
  });
});

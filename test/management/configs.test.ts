/**
 * Config types and configs end to end: CRUD of every field, schema validation with the failing
 * path, the built-in types, and the delete rules OpenZiti has.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../support/controller.js';
import { adminApi } from '../support/admin-api.js';

let c: TestController;
let admin: string;

beforeAll(async () => {
  c = await startTestController();
  admin = await c.login();
});
afterAll(async () => c?.stop());

const { get, post, put, patch, del } = adminApi(() => c, () => admin);

const PORT_SCHEMA = {
  type: 'object',
  required: ['hostname', 'port'],
  additionalProperties: false,
  properties: { hostname: { type: 'string' }, port: { type: 'integer', minimum: 1, maximum: 65535 }, ranges: { type: 'array', items: { type: 'object', properties: { low: { type: 'integer' } } } } },
};

describe('config types', () => {
  it('exists with the built-in types and their schemas at first start', async () => {
    const r = await get(`/config-types?limit=100`);
    const byName = new Map((r.body.data as Array<{ name: string; id: string; schema: Record<string, unknown> }>).map((t) => [t.name, t]));
    for (const name of ['intercept.v1', 'host.v1', 'host.v2', 'ziti-tunneler-client.v1', 'ziti-tunneler-server.v1', 'proxy.v1']) expect(byName.has(name)).toBe(true);
    expect(byName.get('intercept.v1')!.id).toBe('g7cIWbcGg');
    expect(byName.get('host.v1')!.id).toBe('NH5p4FpGR');
    expect(byName.get('intercept.v1')!.schema.required).toEqual(['protocols', 'addresses', 'portRanges']);
  });

  it('creates, reads, replaces, patches and deletes a config type with every field', async () => {
    const { body } = await post('/config-types', { name: 'ct-crud', schema: PORT_SCHEMA, tags: { env: 'dev', on: true, gone: null }, target: 'service' });
    const id = body.data.id as string;
    expect(body.data._links.self.href).toBe(`./config-types/${id}`);
    let d = (await get(`/config-types/${id}`)).body.data;
    expect(d).toMatchObject({ id, name: 'ct-crud', schema: PORT_SCHEMA, tags: { env: 'dev', on: true, gone: null }, target: 'service' });
    await put(`/config-types/${id}`, { name: 'ct-crud-2', schema: { type: 'object' }, tags: {} });
    d = (await get(`/config-types/${id}`)).body.data;
    expect(d).toMatchObject({ name: 'ct-crud-2', schema: { type: 'object' }, tags: {} });
    await patch(`/config-types/${id}`, { tags: { a: 'b' } });
    d = (await get(`/config-types/${id}`)).body.data;
    expect(d).toMatchObject({ name: 'ct-crud-2', schema: { type: 'object' }, tags: { a: 'b' } });
    await del(`/config-types/${id}`);
    await get(`/config-types/${id}`, 404);
  });

  it('refuses a schema that is not a JSON schema, a duplicate name and a missing name', async () => {
    const bad = await post('/config-types', { name: 'ct-bad', schema: { type: 'no-such-type' } }, 400);
    expect(bad.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: 'schema' } });
    await post('/config-types', { name: 'ct-dup' });
    const dup = await post('/config-types', { name: 'ct-dup' }, 400);
    expect(dup.body.error.cause.field).toBe('name');
    const missing = await post('/config-types', { schema: {} }, 400);
    expect(missing.body.error.cause.field).toBe('name');
  });

  it('answers 409 when a config type that configs use is deleted, and nothing changes', async () => {
    const type = (await post('/config-types', { name: 'ct-used', schema: PORT_SCHEMA })).body.data.id;
    const config = (await post('/configs', { name: 'cfg-used', configTypeId: type, data: { hostname: 'a', port: 1 } })).body.data.id;
    const r = await del(`/config-types/${type}`, 409);
    expect(r.body.error.code).toBe('CAN_NOT_DELETE_REFERENCED_ENTITY');
    await get(`/config-types/${type}`);
    const configs = await get(`/config-types/${type}/configs`);
    expect(configs.body.data.map((x: { id: string }) => x.id)).toEqual([config]);
    await del(`/configs/${config}`);
    await del(`/config-types/${type}`);
  });
});

describe('configs', () => {
  let type: string;
  beforeAll(async () => {
    type = (await post('/config-types', { name: 'ct-configs', schema: PORT_SCHEMA })).body.data.id;
  });

  it('round-trips every field and keeps the type on update', async () => {
    const id = (await post('/configs', { name: 'cfg-1', configTypeId: type, data: { hostname: 'h', port: 80 }, tags: { t: 'x' } })).body.data.id;
    let d = (await get(`/configs/${id}`)).body.data;
    expect(d).toMatchObject({ id, name: 'cfg-1', configTypeId: type, configType: { id: type, name: 'ct-configs' }, data: { hostname: 'h', port: 80 }, tags: { t: 'x' } });
    await put(`/configs/${id}`, { name: 'cfg-1b', data: { hostname: 'g', port: 81 } });
    d = (await get(`/configs/${id}`)).body.data;
    expect(d).toMatchObject({ name: 'cfg-1b', configTypeId: type, data: { hostname: 'g', port: 81 }, tags: {} });
    await patch(`/configs/${id}`, { name: 'cfg-1c' });
    expect((await get(`/configs/${id}`)).body.data).toMatchObject({ name: 'cfg-1c', data: { hostname: 'g', port: 81 } });
    const listed = await get(`/configs?filter=${encodeURIComponent('name = "cfg-1c"')}`);
    expect(listed.body.data).toHaveLength(1);
  });

  // As tests/config_test.go: the field is gojsonschema's, `(root)` for a missing required property.
  it('validates data against the type schema and names the failing value as OpenZiti does', async () => {
    const missing = await post('/configs', { name: 'cfg-bad', configTypeId: type, data: { hostname: 'h' } }, 400);
    expect(missing.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: '(root)' } });
    const range = await post('/configs', { name: 'cfg-bad', configTypeId: type, data: { hostname: 'h', port: 70000 } }, 400);
    expect(range.body.error.cause).toMatchObject({ field: 'port', value: 70000 });
    const nested = await post('/configs', { name: 'cfg-bad', configTypeId: type, data: { hostname: 'h', port: 1, ranges: [{ low: 'x' }] } }, 400);
    expect(nested.body.error.cause.field).toBe('ranges.0.low');
    const extra = await post('/configs', { name: 'cfg-bad', configTypeId: type, data: { hostname: 'h', port: 1, other: 1 } }, 400);
    expect(extra.body.error.cause.field).toBe('(root)');
    const noData = await post('/configs', { name: 'cfg-bad', configTypeId: type }, 400);
    expect(noData.body.error.cause.field).toBe('data');
    const list = await get(`/configs?filter=${encodeURIComponent('name = "cfg-bad"')}`);
    expect(list.body.data).toHaveLength(0);
  });

  it('validates updates too and leaves the config unchanged when they fail', async () => {
    const id = (await post('/configs', { name: 'cfg-upd', configTypeId: type, data: { hostname: 'h', port: 80 } })).body.data.id;
    const r = await patch(`/configs/${id}`, { data: { hostname: 'h', port: 'eighty' } }, 400);
    expect(r.body.error.cause.field).toBe('port');
    expect((await get(`/configs/${id}`)).body.data.data).toEqual({ hostname: 'h', port: 80 });
  });

  it('validates against the built-in intercept.v1 schema', async () => {
    const ok = { protocols: ['tcp'], addresses: ['db.ziti', '10.0.0.0/8'], portRanges: [{ low: 5432, high: 5432 }] };
    await post('/configs', { name: 'cfg-intercept', configTypeId: 'g7cIWbcGg', data: ok });
    const bad = await post('/configs', { name: 'cfg-intercept-bad', configTypeId: 'g7cIWbcGg', data: { ...ok, protocols: ['icmp'] } }, 400);
    expect(bad.body.error.cause.field).toBe('protocols.0');
  });

  // As tests/config_test.go "create without type" / "create with invalid config type".
  it('answers COULD_NOT_VALIDATE on `type` for an empty or unknown config type', async () => {
    for (const configTypeId of ['', 'nope']) {
      const r = await post('/configs', { name: 'cfg-x', configTypeId, data: { port: 22 } }, 400);
      expect(r.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: 'type', value: configTypeId } });
    }
    expect((await get(`/configs?filter=${encodeURIComponent('name = "cfg-x"')}`)).body.data).toHaveLength(0);
  });

  // Regression: a `pattern` that backtracks exponentially held the policy service for minutes.
  it('checks a catastrophic-backtracking pattern in milliseconds, and refuses patterns it cannot run in linear time', async () => {
    const evil = (await post('/config-types', { name: 'ct-evil', schema: { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } } })).body.data.id;
    const started = performance.now();
    const r = await post('/configs', { name: 'cfg-evil', configTypeId: evil, data: { name: `${'a'.repeat(30)}b` } }, 400);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(r.body.error.cause.field).toBe('name');
    await post('/configs', { name: 'cfg-evil', configTypeId: evil, data: { name: 'a'.repeat(30) } });
    const look = await post('/config-types', { name: 'ct-lookahead', schema: { type: 'object', properties: { a: { type: 'string', pattern: '^(?=x)' } } } }, 400);
    expect(look.body.error.cause.field).toBe('schema');
  });

  it('deletes a config a service uses, removing it from the service (as OpenZiti does)', async () => {
    const cfg = (await post('/configs', { name: 'cfg-svc', configTypeId: type, data: { hostname: 'h', port: 1 } })).body.data.id;
    const svc = (await post('/services', { name: 'svc-with-cfg', encryptionRequired: true, configs: [cfg] })).body.data.id;
    const users = await get(`/configs/${cfg}/services`);
    expect(users.body.data.map((s: { id: string }) => s.id)).toEqual([svc]);
    await del(`/configs/${cfg}`);
    expect((await get(`/services/${svc}`)).body.data.configs).toEqual([]);
  });
});

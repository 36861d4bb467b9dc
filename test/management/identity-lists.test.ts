/**
 * Lists end to end on a few hundred identities: every filter operator, sorting, paging edges,
 * totalCount under filters and role filters, each answer compared with the reference
 * evaluation of the same filter over the identities as the API renders them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { IDENTITY_FIELDS } from '@edge/identity';
import { evaluate, parseFilter, sortRecords, type FilterRecord } from '@edge/zitiql';
import { startTestController, type TestController } from '../support/controller.js';
import { grpcCallsOf } from '../support/metrics.js';

const M = '/edge/management/v1';
const COUNT = 240;
let c: TestController;
let admin: string;
let records: FilterRecord[];

const WORDS = ['db', 'web', 'DB', 'edge', 'Router', 'ünï', '%', '_', 'x"q'];
const ATTRS = ['eu', 'us', 'apac', 'db', 'web'];

/** A deterministic generator, so a failure reproduces. */
function rng(seed: number) {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
}

function identityBody(i: number, r: () => number) {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const tags: Record<string, unknown> = {};
  if (r() < 0.7) tags.env = pick(['prod', 'dev', 'Prod']);
  if (r() < 0.5) tags.tier = pick(['gold', 'silver', 'bronze']);
  if (r() < 0.3) tags.flag = r() < 0.5;
  return {
    name: `${pick(WORDS)}-${pick(WORDS)}-${i}`,
    type: pick(['User', 'Device', 'Default']),
    isAdmin: r() < 0.15,
    roleAttributes: ATTRS.filter(() => r() < 0.35),
    tags,
    appData: r() < 0.5 ? { team: pick(['red', 'blue']) } : {},
    defaultHostingCost: Math.floor(r() * 100),
    defaultHostingPrecedence: pick(['default', 'required', 'failed']),
    ...(r() < 0.6 ? { externalId: `ext-${i}` } : {}),
  };
}

/** An identity as the filter sees it, read from the API's rendering. */
function toRecord(d: Record<string, unknown>): FilterRecord {
  const date = (v: unknown) => (typeof v === 'string' ? new Date(v) : null);
  return {
    ...d,
    type: d.typeId,
    'type.name': d.typeId,
    authPolicy: d.authPolicyId,
    createdAt: date(d.createdAt),
    updatedAt: date(d.updatedAt),
    disabledAt: date(d.disabledAt),
    disabledUntil: date(d.disabledUntil),
  };
}

async function list(query: string, expectStatus = 200) {
  return c.http.get(`${M}/identities?${query}`, { session: admin, expectStatus });
}

const enc = encodeURIComponent;

beforeAll(async () => {
  c = await startTestController();
  admin = await c.login();
  const r = rng(7);
  const bodies = Array.from({ length: COUNT }, (_, i) => identityBody(i, r));
  for (let i = 0; i < bodies.length; i += 8) {
    await Promise.all(bodies.slice(i, i + 8).map((body) => c.http.post(`${M}/identities`, { body, session: admin, expectStatus: 201 })));
  }
  const all = await list('limit=500&filter=' + enc('true'));
  expect(all.body.meta.pagination.totalCount).toBe(COUNT + 1);
  records = (all.body.data as Record<string, unknown>[]).map(toRecord);
}, 180_000);
afterAll(async () => c?.stop());

/** The page the reference evaluation gives for a filter sent with `limit=500`. */
function reference(filter: string): { ids: string[]; total: number } {
  const q = parseFilter(filter);
  const hits = records.filter((x) => (q.where ? evaluate(q.where, x, IDENTITY_FIELDS, filter) : true));
  const sorted = sortRecords(hits, q.sort.length > 0 ? q.sort : [{ field: 'createdAt', direction: 'asc', pos: 0 }], IDENTITY_FIELDS);
  const skip = q.skip ?? 0;
  const limit = q.limit === 'none' ? Infinity : q.limit === undefined ? 500 : Math.min(q.limit, 500);
  return { ids: sorted.slice(skip, skip + limit).map((x) => x.id as string), total: hits.length };
}

describe('identity list filters', () => {
  const mid = () => (records[120]!.createdAt as Date).toISOString();
  const filters: Array<string | (() => string)> = [
    'name contains "db" and anyOf(roleAttributes) = "eu" sort by name limit 50',
    () => `name = ${JSON.stringify(records[17]!.name)}`,
    'name icontains "DB" sort by name desc',
    'name not contains "web"',
    'name contains "%" or name contains "_"',
    'name contains "x\\"q"',
    'name < "e" sort by name',
    () => `id in ["${records[3]!.id as string}", "${records[200]!.id as string}", "nope"]`,
    'anyOf(roleAttributes) in ["eu", "us"]',
    'anyOf(roleAttributes) not in ["eu", "us"]',
    'allOf(roleAttributes) = "eu"',
    'allOf(roleAttributes) icontains "E"',
    'count(roleAttributes) > 1 sort by name',
    'count(roleAttributes) between 2 and 3',
    'isEmpty(roleAttributes)',
    'not isEmpty(roleAttributes) and isAdmin',
    'isAdmin = true',
    'not isAdmin and defaultHostingCost > 50',
    'not (isAdmin or defaultHostingCost > 50)',
    'isDefaultAdmin',
    'externalId = null',
    'externalId != null sort by externalId desc',
    'not externalId = "ext-5"',
    'tags.env = "prod"',
    'tags.env icontains "PROD"',
    'tags.tier >= "gold" sort by tags.tier desc',
    'tags.flag = true or tags.flag = false',
    'tags.env = null',
    'appData.team in ["red"]',
    'type = "Default" and type.name = "Default" and typeId = "Default"',
    'authPolicyId = "default" and authPolicy = "default"',
    'defaultHostingCost between 10 and 20 sort by defaultHostingCost, name desc',
    'defaultHostingCost not in [1, 2, 3, 4, 5]',
    'defaultHostingPrecedence in ["required", "failed"]',
    () => `createdAt > datetime(${mid()})`,
    () => `createdAt <= datetime(${mid()}) sort by createdAt desc`,
    () => `createdAt = datetime(${mid()})`,
    'disabled = false and disabledAt = null',
    'true sort by name desc skip 10 limit 25',
    'SORT BY updatedAt DESC LIMIT none',
    'false',
  ];
  it.each(filters.map((f) => [typeof f === 'string' ? f : f.toString().replace(/^\(\) => /, ''), f] as const))('%s', async (_label, f) => {
    const filter = typeof f === 'string' ? f : f();
    const r = await list(`limit=500&filter=${enc(filter)}`);
    const want = reference(filter);
    expect(r.body.meta.pagination.totalCount).toBe(want.total);
    expect(r.body.data.map((d: { id: string }) => d.id)).toEqual(want.ids);
    expect(r.body.meta.filterableFields).toEqual(expect.arrayContaining(['name', 'roleAttributes', 'tags', 'createdAt']));
  });

  it('finds the identity a createdAt read from the API belongs to', async () => {
    const target = records[42]!;
    const r = await list(`filter=${enc(`createdAt = datetime(${(target.createdAt as Date).toISOString()}) and id = "${target.id as string}"`)}`);
    expect(r.body.data.map((d: { id: string }) => d.id)).toEqual([target.id]);
  });
});

describe('identity list paging', () => {
  it('walks every page of a sorted filter without gaps or repeats', async () => {
    const filter = enc('name contains "-" sort by name desc');
    const want = reference('name contains "-" sort by name desc limit none').ids;
    const seen: string[] = [];
    for (let offset = 0; offset < want.length + 7; offset += 7) {
      const r = await list(`limit=7&offset=${offset}&filter=${filter}`);
      expect(r.body.meta.pagination).toMatchObject({ limit: 7, offset, totalCount: want.length });
      seen.push(...r.body.data.map((d: { id: string }) => d.id));
    }
    expect(seen).toEqual(want);
  });

  it('answers an offset at or past the end with an empty page and the full count', async () => {
    for (const offset of [COUNT + 1, COUNT + 50, 100_000]) {
      const r = await list(`offset=${offset}`);
      expect(r.body.data).toEqual([]);
      expect(r.body.meta.pagination).toEqual({ limit: 10, offset, totalCount: COUNT + 1 });
    }
  });

  it('asks nothing more for an empty page than the page itself', async () => {
    const calls = async () => {
      const n = await grpcCallsOf('ListIdentities', 'GetIdentityAuthSummaries', 'GetEnrollmentsOf');
      return { list: n.ListIdentities!, summaries: n.GetIdentityAuthSummaries!, enrollments: n.GetEnrollmentsOf! };
    };
    const before = await calls();
    const empty = await list(`filter=${encodeURIComponent('name = "no such identity"')}`);
    expect(empty.body.data).toEqual([]);
    const afterEmpty = await calls();
    expect(afterEmpty).toEqual({ ...before, list: before.list + 1 });
    // A page with identities still comes with their authenticators and enrollments: once, then
    // from what the gateway keeps (an administrator's write, as below, drops all it kept).
    await c.http.post(`${M}/services`, { body: { name: 'identity-lists-any-write', encryptionRequired: true }, session: admin, expectStatus: 201 });
    const page = await list('limit=2');
    expect(page.body.data).toHaveLength(2);
    expect(await calls()).toEqual({ list: before.list + 2, summaries: before.summaries + 1, enrollments: before.enrollments + 1 });
    expect((await list('limit=2')).body.data).toEqual(page.body.data);
    expect(await calls()).toMatchObject({ summaries: before.summaries + 1, enrollments: before.enrollments + 1 });
  });

  it('uses 10 by default, clamps to 500, and lets skip/limit in the filter override the parameters', async () => {
    expect((await list('')).body.data).toHaveLength(10);
    expect((await list('limit=1000')).body.meta.pagination.limit).toBe(500);
    const r = await list(`limit=20&offset=1&filter=${enc('true skip 3 limit 5')}`);
    expect(r.body.meta.pagination).toEqual({ limit: 5, offset: 3, totalCount: COUNT + 1 });
    expect(r.body.data.map((d: { id: string }) => d.id)).toEqual(reference('true skip 3 limit 5').ids);
  });

  it('answers limit=-1 and limit none, OpenZiti\'s "all of them", with every identity and limit -1', async () => {
    const r = await list('limit=-1&offset=0&sort=name%20asc');
    expect(r.body.meta.pagination).toEqual({ limit: -1, offset: 0, totalCount: COUNT + 1 });
    expect(r.body.data).toHaveLength(COUNT + 1);
    const none = await list(`limit=5&filter=${enc('true skip 3 limit none')}`);
    expect(none.body.meta.pagination).toEqual({ limit: -1, offset: 3, totalCount: COUNT + 1 });
    expect(none.body.data.map((d: { id: string }) => d.id)).toEqual(reference('true skip 3 limit none').ids);
    // The filter's limit wins over limit=-1.
    expect((await list(`limit=-1&filter=${enc('true limit 4')}`)).body.meta.pagination).toEqual({ limit: 4, offset: 0, totalCount: COUNT + 1 });
  });

  it('sorts by the sort parameter when the filter has no sort by', async () => {
    const r = await list(`limit=500&sort=${enc('defaultHostingCost desc, name')}&filter=isAdmin`);
    expect(r.body.data.map((d: { id: string }) => d.id)).toEqual(reference('isAdmin sort by defaultHostingCost desc, name').ids);
  });
});

describe('identity role filters', () => {
  const ids = (body: { data: Array<{ id: string }> }) => body.data.map((d) => d.id).sort();
  const having = (pred: (attrs: string[]) => boolean) => records.filter((x) => pred(x.roleAttributes as string[])).map((x) => x.id as string).sort();

  it('matches AllOf by default and AnyOf on request', async () => {
    const all = await list('limit=500&roleFilter=%23eu&roleFilter=%23us');
    expect(ids(all.body)).toEqual(having((a) => a.includes('eu') && a.includes('us')));
    const any = await list('limit=500&roleFilter=%23eu&roleFilter=%23us&roleSemantic=AnyOf');
    expect(ids(any.body)).toEqual(having((a) => a.includes('eu') || a.includes('us')));
    expect(any.body.meta.pagination.totalCount).toBe(having((a) => a.includes('eu') || a.includes('us')).length);
  });

  it('selects named entities by @id or @name, everything with #all, and combines with a filter', async () => {
    const one = records[9]!;
    expect(ids((await list(`roleFilter=${enc(`@${one.id as string}`)}`)).body)).toEqual([one.id]);
    expect(ids((await list(`roleFilter=${enc(`@${one.name as string}`)}`)).body)).toEqual([one.id]);
    expect((await list('roleFilter=%23all')).body.meta.pagination.totalCount).toBe(COUNT + 1);
    const both = await list(`limit=500&roleFilter=%23db&filter=${enc('isAdmin')}`);
    expect(ids(both.body)).toEqual(records.filter((x) => (x.roleAttributes as string[]).includes('db') && x.isAdmin).map((x) => x.id as string).sort());
  });

  it('refuses roles without # or @ and an unknown semantic', async () => {
    const r = await list('roleFilter=eu', 400);
    expect(r.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: 'roleFilter[0]', value: 'eu' } });
    const s = await list('roleFilter=%23eu&roleSemantic=Some', 400);
    expect(s.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: 'roleSemantic' } });
  });
});

describe('identity list errors', () => {
  it('answers a malformed filter with INVALID_FILTER, the position and what was expected', async () => {
    const r = await list(`filter=${enc('name = "x" and')}`, 400);
    expect(r.body.error).toMatchObject({ code: 'INVALID_FILTER', cause: { field: 'filter', position: 14, value: 'name = "x" and' } });
    expect(r.body.error.cause.reason).toMatch(/expected a condition.*at position 14/);
  });

  it('answers an unknown field with INVALID_FILTER and an unknown sort field with INVALID_SORT_IDENTIFIER', async () => {
    expect((await list(`filter=${enc('password = "x"')}`, 400)).body.error).toMatchObject({ code: 'INVALID_FILTER', cause: { position: 0 } });
    expect((await list(`filter=${enc('true sort by password')}`, 400)).body.error).toMatchObject({ code: 'INVALID_SORT_IDENTIFIER' });
    expect((await list(`sort=${enc('nope')}`, 400)).body.error).toMatchObject({ code: 'INVALID_SORT_IDENTIFIER', cause: { field: 'sort' } });
  });

  it('answers paging that is no integer with INVALID_PAGINATION', async () => {
    for (const q of ['limit=abc', 'limit=1.5', 'offset=x']) {
      expect((await list(q, 400)).body.error.code).toBe('INVALID_PAGINATION');
    }
  });

  it('clamps integer paging out of range as OpenZiti\'s controller does', async () => {
    const total = COUNT + 1;
    for (const [q, limit, offset] of [['limit=0', 10, 0], ['limit=-5', 10, 0], ['offset=-1', 10, 0], ['limit=%2B3', 3, 0],
      ['offset=100001', 10, 100000], [`filter=${enc('skip 100001')}`, 10, 100000], [`filter=${enc('true limit 0')}`, 10, 0]] as const) {
      expect((await list(q)).body.meta.pagination, q).toEqual({ limit, offset, totalCount: total });
    }
  });

  it('treats injection attempts as values, changing nothing', async () => {
    for (const f of [`name = "x'; drop table identities; --"`, `name = "\\" or 1=1 --"`, `'tags.x; drop table identities' = "1"`]) {
      const r = await list(`filter=${enc(f)}`);
      expect(r.body.meta.pagination.totalCount).toBe(0);
    }
    expect((await list(`filter=${enc(`'tags.x''); drop table identities; --' = 1`)}`, 400)).body.error.code).toBe('INVALID_FILTER');
    expect((await list('')).body.meta.pagination.totalCount).toBe(COUNT + 1);
  });
});

describe('identity types', () => {
  it('lists, filters and reads identity types', async () => {
    const all = await c.http.get(`${M}/identity-types`, { session: admin, expectStatus: 200 });
    expect(all.body.data.map((t: { name: string }) => t.name).sort()).toEqual(['Default', 'Router']);
    const router = await c.http.get(`${M}/identity-types?filter=${enc('name = "Router"')}`, { session: admin, expectStatus: 200 });
    expect(router.body.data).toHaveLength(1);
    expect(router.body.meta.pagination.totalCount).toBe(1);
    const one = await c.http.get(`${M}/identity-types/Router`, { session: admin, expectStatus: 200 });
    expect(one.body.data).toMatchObject({ id: 'Router', name: 'Router', _links: { self: { href: './identity-types/Router' } } });
    await c.http.get(`${M}/identity-types/nope`, { session: admin, expectStatus: 404 });
  });
});

describe('identity role attributes', () => {
  it('lists the distinct attributes in use, sorted, filterable and paged', async () => {
    const inUse = [...new Set(records.flatMap((x) => x.roleAttributes as string[]))].sort();
    const all = await c.http.get(`${M}/identity-role-attributes?limit=100`, { session: admin, expectStatus: 200 });
    expect(all.body.data).toEqual(inUse);
    expect(all.body.meta.pagination.totalCount).toBe(inUse.length);
    expect(all.body.meta.filterableFields).toEqual(['id']);
    const some = await c.http.get(`${M}/identity-role-attributes?filter=${enc('id contains "e" sort by id desc')}`, { session: admin, expectStatus: 200 });
    expect(some.body.data).toEqual(inUse.filter((a) => a.includes('e')).reverse());
    // limit and offset parameters are not read (as OpenZiti's controller): only the filter pages
    const page = await c.http.get(`${M}/identity-role-attributes?limit=2&offset=1`, { session: admin, expectStatus: 200 });
    expect(page.body.data).toEqual(inUse);
    await c.http.get(`${M}/identity-role-attributes?filter=${enc('name = "x"')}`, { session: admin, expectStatus: 400 });
    // no sort parameter is read here (the admin console sends one naming `name`)
    const sorted = await c.http.get(`${M}/identity-role-attributes?limit=100&offset=0&sort=${enc('name asc')}`, { session: admin, expectStatus: 200 });
    expect(sorted.body.data).toEqual(inUse);
  });
});

describe('identity role attributes, many of them', () => {
  it('lists every attribute when the filter names no limit, as an admin console asking with no parameter expects', async () => {
    const many = Array.from({ length: 12 }, (_, i) => `many-${String(i).padStart(2, '0')}`);
    const { body } = await c.http.post(`${M}/identities`, { body: { name: 'many-attributes', type: 'User', isAdmin: false, roleAttributes: many }, session: admin, expectStatus: 201 });
    try {
      const inUse = [...new Set([...records.flatMap((x) => x.roleAttributes as string[]), ...many])].sort();
      const all = await c.http.get(`${M}/identity-role-attributes`, { session: admin, expectStatus: 200 });
      expect(all.body.data).toEqual(inUse);
      expect(all.body.meta.pagination).toEqual({ limit: inUse.length, offset: 0, totalCount: inUse.length });
      const paged = await c.http.get(`${M}/identity-role-attributes?filter=${enc('id contains "many" skip 2 limit 3')}`, { session: admin, expectStatus: 200 });
      expect(paged.body.data).toEqual(many.slice(2, 5));
      expect(paged.body.meta.pagination).toEqual({ limit: 3, offset: 2, totalCount: 12 });
    } finally {
      await c.http.delete(`${M}/identities/${body.data.id}`, { session: admin, expectStatus: 200 });
    }
  });
});

describe('identity list fuzzing', () => {
  it('answers random filter, sort and paging text with 200 or 400, never a 500, and changes nothing', async () => {
    const tokens = ['name', 'tags.env', 'roleAttributes', 'anyOf(roleAttributes)', 'count(roleAttributes)', 'and', 'or', 'not', '(', ')',
      '=', '!=', '<', 'contains', 'in', '["a"]', 'between', '1', 'and 2', '"x"', 'null', 'true', 'sort by', 'name desc', 'skip', 'limit', '5'];
    const text = fc.oneof(fc.string({ maxLength: 40 }), fc.array(fc.constantFrom(...tokens), { maxLength: 10 }).map((t) => t.join(' ')));
    await fc.assert(fc.asyncProperty(text, text, fc.string({ maxLength: 6 }), async (filter, sort, limit) => {
      const r = await c.http.get(`${M}/identities?filter=${enc(filter)}&sort=${enc(sort)}&limit=${enc(limit)}`, { session: admin });
      expect([200, 400]).toContain(r.status);
    }), { numRuns: 150 });
    expect((await list('')).body.meta.pagination.totalCount).toBe(COUNT + 1);
  });
});

/**
 * The compiler against real databases (Postgres and the embedded PGlite the standalone mode
 * uses): every construct returns the same rows, in the same order, as the in-memory reference
 * evaluation; random and hostile inputs give rows or a 400, never a database error, and never
 * change data.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Kysely, sql, type Generated } from 'kysely';
import { isZitiError } from '@edge/errors';
import { createDb, dropSchema, openConnection, type DbConnection } from '@edge/db';
import { evaluate, parseFilter, planList, runList, sortRecords, type FilterRecord } from './index.js';
import { FIELDS } from './test-fixtures.js';

const DATABASE_URL = process.env.EDGE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

interface ItemsDb {
  items: {
    id: string; name: string; external_id: string | null; cost: number; is_admin: boolean;
    created_at: Date; role_attributes: string[]; tags: Generated<unknown>;
  };
}

const WORDS = ['db', 'web', 'DB', 'Edge', 'router', 'eu', 'us', 'ünï', 'x"q', "o'k", 'a b', '%', '_', 'zz'];
const ATTRS = ['eu', 'us', 'EU', 'apac', 'db', 'web'];
const BASE_TIME = Date.parse('2030-01-01T00:00:00.000Z');

/** A deterministic generator, so a failure reproduces. */
function rng(seed: number) {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
}

function makeRecords(n: number): FilterRecord[] {
  const r = rng(42);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  return Array.from({ length: n }, (_, i) => {
    const tags: Record<string, unknown> = {};
    if (r() < 0.7) tags.env = pick(['prod', 'dev', 'test', 'Prod']);
    if (r() < 0.5) tags.weight = Math.floor(r() * 100);
    if (r() < 0.3) tags.flag = r() < 0.5;
    if (r() < 0.1) tags.env = null;
    if (r() < 0.1) tags.weight = 'heavy';
    return {
      id: `id${String(i).padStart(4, '0')}${pick(['a', 'b'])}`,
      name: `${pick(WORDS)}-${pick(WORDS)}-${i}`,
      externalId: r() < 0.3 ? null : `ext-${i % 50}`,
      cost: Math.floor(r() * 40),
      isAdmin: r() < 0.2,
      createdAt: new Date(BASE_TIME + Math.floor(i / 3) * 1000 + Math.floor(r() * 3)),
      roleAttributes: ATTRS.filter(() => r() < 0.3),
      tags,
    };
  });
}

const RECORDS = makeRecords(300);
const CREATED = RECORDS.map((x) => (x.createdAt as Date).toISOString());

/** Filters from the OpenZiti documentation and tests, over this table's fields. */
const FILTERS = [
  'name contains "db" and anyOf(roleAttributes) = "eu" sort by name limit 50',
  'name = "db-web-3"',
  'name icontains "DB" sort by name desc',
  'name not contains "e"',
  'name not icontains "E"',
  'name < "M" sort by name',
  'name >= "o" sort by name desc',
  'name in ["db-web-3", "x\\"q-eu-7", "missing"]',
  'name not in ["db-web-3"]',
  `id in ["${RECORDS[5]!.id}", "${RECORDS[9]!.id}"]`,
  'externalId = null',
  'externalId != null',
  'not externalId = "ext-1"',
  'externalId contains "1"',
  'externalId not contains "1"',
  'cost between 10 and 20 sort by cost desc, name',
  'cost not between 10 and 20',
  'cost in [1, 2, 3] sort by cost',
  'cost not in [1, 2, 3]',
  'cost > 35.5 or cost <= 1',
  'isAdmin',
  'not isAdmin',
  'isAdmin = false and cost != 3',
  'not isAdmin and cost > 10',
  'not (isAdmin and cost > 10)',
  `createdAt > datetime(${CREATED[150]}) sort by createdAt desc`,
  `createdAt = datetime(${CREATED[42]})`,
  `createdAt between datetime(${CREATED[10]}) and datetime(${CREATED[20]})`,
  `createdAt in [datetime(${CREATED[1]}), datetime(${CREATED[2]})]`,
  'anyOf(roleAttributes) = "eu"',
  'anyOf(roleAttributes) in ["eu", "us"]',
  'anyOf(roleAttributes) not in ["eu", "us"]',
  'anyOf(roleAttributes) != "eu"',
  'anyOf(roleAttributes) contains "e"',
  'allOf(roleAttributes) = "eu"',
  'allOf(roleAttributes) icontains "U"',
  'allOf(roleAttributes) in ["eu", "us"]',
  'count(roleAttributes) >= 2',
  'count(roleAttributes) in [0, 3]',
  'count(roleAttributes) between 1 and 2',
  'isEmpty(roleAttributes)',
  'not isEmpty(roleAttributes)',
  'tags.env = "prod"',
  'tags.env != "prod"',
  'tags.env = null',
  'tags.env != null',
  'tags.env icontains "PROD"',
  'tags.env in ["dev", "test"]',
  'tags.weight > 50 sort by tags.weight desc',
  'tags.weight = 7',
  'tags.weight between 10 and 20',
  'tags.weight < "z"',
  'tags.flag',
  'tags.flag = false',
  'tags.missing = null',
  'true sort by createdAt desc',
  'false',
  'skip 20 limit 5',
  'sort by isAdmin desc, cost skip 3',
];

describe.each([
  ['postgres', { url: DATABASE_URL }],
  ['pglite', { dataDir: ':memory:' }],
] as const)('filters on %s', (_label, connOptions) => {
  let conn: DbConnection;
  let db: Kysely<ItemsDb>;
  const schema = `test_zitiql_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    conn = await openConnection(connOptions);
    await sql.raw(`create schema ${schema}`).execute(new Kysely<unknown>({ dialect: conn.dialect() }));
    db = createDb<ItemsDb>(conn, schema);
    await db.schema.createTable('items')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('external_id', 'text')
      .addColumn('cost', 'integer', (c) => c.notNull())
      .addColumn('is_admin', 'boolean', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('role_attributes', sql`text[]`, (c) => c.notNull())
      .addColumn('tags', 'jsonb', (c) => c.notNull())
      .execute();
    await db.insertInto('items').values(RECORDS.map((x) => ({
      id: x.id as string, name: x.name as string, external_id: x.externalId as string | null, cost: x.cost as number,
      is_admin: x.isAdmin as boolean, created_at: x.createdAt as Date, role_attributes: x.roleAttributes as string[],
      tags: JSON.stringify(x.tags),
    }))).execute();
  });

  afterAll(async () => {
    await dropSchema(conn, schema).catch(() => undefined);
    await conn.close();
  });

  async function run(filter: string) {
    const plan = planList(FIELDS, { filter, limit: 10, offset: 0 });
    return runList(db.selectFrom('items'), plan, (qb) => qb.select('id'));
  }

  function reference(filter: string): { ids: string[]; total: number } {
    const q = parseFilter(filter);
    const hits = RECORDS.filter((x) => (q.where ? evaluate(q.where, x, FIELDS, filter) : true));
    const sorted = sortRecords(hits, q.sort.length > 0 ? q.sort : [{ field: 'createdAt', direction: 'asc', pos: 0 }], FIELDS);
    const limit = q.limit === 'none' ? 500 : (q.limit ?? 10);
    return { ids: sorted.slice(q.skip ?? 0, (q.skip ?? 0) + limit).map((x) => x.id as string), total: hits.length };
  }

  async function checksum(): Promise<string> {
    const r = await sql<{ c: string }>`select md5(string_agg(t::text, ',' order by id)) as c from ${sql.id(schema, 'items')} t`.execute(db);
    return r.rows[0]!.c;
  }

  it('gives a page without a filter to be prepared by its text, and never one with a filter', async () => {
    const given: string[] = [];
    const prepare = (text: string) => { given.push(text); };
    const plain = await runList(db.selectFrom('items'), planList(FIELDS, { limit: 5, offset: 0 }), (qb) => qb.select('id'), { inlineCount: true, prepare });
    expect(given).toHaveLength(1);
    expect(given[0]).toContain('count(*) over ()');
    expect(plain).toEqual(await run('limit 5'));
    await runList(db.selectFrom('items'), planList(FIELDS, { filter: 'cost > 3', limit: 5, offset: 0 }), (qb) => qb.select('id'), { inlineCount: true, prepare });
    expect(given).toHaveLength(1);
  });

  it.each(FILTERS)('%s', async (filter) => {
    const full = /\b(limit|skip)\b/i.test(filter) ? filter : `${filter} limit none`;
    const got = await run(full);
    const want = reference(full);
    expect(got.total).toBe(want.total);
    expect(got.rows.map((r) => r.id)).toEqual(want.ids);
  });

  it('matches the reference on random well-formed filters', async () => {
    await fc.assert(fc.asyncProperty(filterArb, async (filter) => {
      const full = `${filter} limit none`;
      const got = await run(full);
      const want = reference(full);
      expect(got.total).toBe(want.total);
      expect(got.rows.map((r) => r.id)).toEqual(want.ids);
    }), { numRuns: _label === 'postgres' ? 300 : 80 });
  });

  it('answers random and hostile text with rows or a 400, never a database error, and changes nothing', async () => {
    const before = await checksum();
    const hostile = [
      `name = "x'; drop table items; --"`, `name = "\\" or 1=1 --"`, `'tags.x'') = 1; drop table items; --' = 1`,
      `'name" = 1 or "1' = 1`, `tags.env = "'); delete from items; --"`, `name in ["a')); delete from items; --"]`,
      'name = "\\u0000"', `sort by 'name; drop table items'`, `anyOf(roleAttributes) = "x' or '1'='1"`, `tags.'x = 1`,
      `name contains "%' or '%'='"`, 'cost = 99999999999999999999999999999999', 'cost < -1e300', 'limit 9999999999999999999',
      `createdAt > datetime(9999-12-31T23:59:59Z)`, `createdAt > datetime(0000-01-01T00:00:00Z)`,
    ];
    const soup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 12 }).map((t) => t.join(' '));
    const texts = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 40 }), soup, fc.constantFrom(...hostile));
    await fc.assert(fc.asyncProperty(texts, async (text) => {
      try {
        await run(text);
      } catch (err) {
        if (!isZitiError(err) || err.status !== 400) throw err;
      }
    }), { numRuns: _label === 'postgres' ? 400 : 100 });
    for (const text of hostile) {
      await run(text).catch((err: unknown) => {
        if (!isZitiError(err) || err.status !== 400) throw err;
      });
    }
    expect(await checksum()).toBe(before);
  });
});

const TOKENS = [
  'name', 'cost', 'tags.env', 'roleAttributes', 'nope', 'and', 'or', 'not', '(', ')', '[', ']', ',', '=', '!=', '<', '>=',
  'contains', 'icontains', 'in', 'between', 'anyOf(roleAttributes)', 'allOf(name)', 'count(roleAttributes)', 'isEmpty(cost)',
  '"x"', '"eu"', '1', '-2.5', 'true', 'null', 'datetime(2030-01-01T00:00:00Z)', 'sort by', 'name desc', 'skip', 'limit', 'none', '5',
];

// Well-formed filters over FIELDS, to compare SQL and reference evaluation.
const str = fc.constantFrom('db', 'eu', 'e', 'E', 'prod', 'Prod', 'x"q', "o'k", '-1', 'ünï', '', 'zz-web');
const num = fc.integer({ min: -2, max: 45 });
const quote = (s: string) => JSON.stringify(s);
const date = fc.integer({ min: 0, max: 299 }).map((i) => `datetime(${CREATED[i]})`);
const cmp = fc.constantFrom('=', '!=', '<', '<=', '>', '>=');
const eq = fc.constantFrom('=', '!=');
const neg = fc.constantFrom('', 'not ');
const contains = fc.constantFrom('contains', 'icontains');

const atom: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.constantFrom('name', 'id'), cmp, str).map(([f, o, v]) => `${f} ${o} ${quote(v)}`),
  fc.tuple(fc.constantFrom('name', 'externalId'), neg, contains, str).map(([f, n, c, v]) => `${f} ${n}${c} ${quote(v)}`),
  fc.tuple(fc.constantFrom('name', 'externalId'), neg, fc.array(str, { minLength: 1, maxLength: 3 })).map(([f, n, vs]) => `${f} ${n}in [${vs.map(quote).join(', ')}]`),
  fc.tuple(fc.constantFrom('externalId', 'tags.env', 'tags.weight', 'tags.none'), eq).map(([f, o]) => `${f} ${o} null`),
  fc.tuple(cmp, num).map(([o, v]) => `cost ${o} ${v}`),
  fc.tuple(neg, num, num).map(([n, a, b]) => `cost ${n}between ${Math.min(a, b)} and ${Math.max(a, b)}`),
  fc.tuple(neg, fc.array(num, { minLength: 1, maxLength: 4 })).map(([n, vs]) => `cost ${n}in [${vs.join(', ')}]`),
  fc.tuple(eq, fc.boolean()).map(([o, b]) => `isAdmin ${o} ${b}`),
  fc.constantFrom('isAdmin', 'tags.flag', 'true', 'false', 'isEmpty(roleAttributes)'),
  fc.tuple(cmp, date).map(([o, d]) => `createdAt ${o} ${d}`),
  fc.tuple(neg, date, date).map(([n, a, b]) => `createdAt ${n}between ${a < b ? a : b} and ${a < b ? b : a}`),
  fc.tuple(fc.constantFrom('anyOf', 'allOf'), cmp, fc.constantFrom(...ATTRS)).map(([s, o, v]) => `${s}(roleAttributes) ${o} ${quote(v)}`),
  fc.tuple(fc.constantFrom('anyOf', 'allOf'), neg, fc.array(fc.constantFrom(...ATTRS), { minLength: 1, maxLength: 3 })).map(([s, n, vs]) => `${s}(roleAttributes) ${n}in [${vs.map(quote).join(', ')}]`),
  fc.tuple(fc.constantFrom('anyOf', 'allOf'), neg, contains, str).map(([s, n, c, v]) => `${s}(roleAttributes) ${n}${c} ${quote(v)}`),
  fc.tuple(cmp, fc.integer({ min: 0, max: 4 })).map(([o, v]) => `count(roleAttributes) ${o} ${v}`),
  fc.tuple(fc.constantFrom('tags.env', 'tags.weight', 'tags.flag'), eq, fc.oneof(str.map(quote), num.map(String), fc.boolean().map(String))).map(([f, o, v]) => `${f} ${o} ${v}`),
  fc.tuple(fc.constantFrom('<', '>=', '>'), fc.oneof(num.map(String), str.map(quote))).map(([o, v]) => `tags.weight ${o} ${v}`),
  fc.tuple(neg, contains, str).map(([n, c, v]) => `tags.env ${n}${c} ${quote(v)}`),
);

const filterArb: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    atom,
    fc.tuple(tie('expr'), fc.constantFrom('and', 'or'), tie('expr')).map(([a, op, b]) => `${a} ${op} ${b}`),
    tie('expr').map((e) => `(${e})`),
    tie('expr').map((e) => `not ${e}`),
  ),
})).expr;

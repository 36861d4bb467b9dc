import { describe, expect, it } from 'vitest';
import { createSqlOnlyDb } from '@edge/testing';
import { isZitiError } from '@edge/errors';
import { filterableFields, planList, type ListParams } from './index.js';
import { FIELDS } from './test-fixtures.js';

const db = createSqlOnlyDb<{ items: { id: string } }>();

/** The SQL and parameters a list request compiles to. */
function compiled(params: ListParams) {
  const plan = planList(FIELDS, { limit: 10, offset: 0, ...params });
  let q = db.selectFrom('items').select('id');
  if (plan.where) q = q.where(plan.where);
  for (const t of plan.orderBy) q = q.orderBy(t);
  const c = q.limit(plan.limit).offset(plan.offset).compile();
  return { sql: c.sql, parameters: c.parameters, limit: plan.limit, offset: plan.offset };
}

function failure(params: ListParams): { code: string; field: string; reason: string; position: number } {
  try {
    compiled(params);
  } catch (err) {
    if (!isZitiError(err)) throw err;
    const cause = err.fieldCause as { field: string; reason: string; position: number };
    return { code: err.code, ...cause };
  }
  throw new Error('compiled');
}

describe('compiled SQL', () => {
  it('binds every value and reads only mapped columns', () => {
    expect(compiled({ filter: 'name contains "db" and anyOf(roleAttributes) = "eu" sort by name limit 50' })).toEqual({
      sql: 'select "id" from "items" where ((strpos("name", $1) > 0) and ("role_attributes" @> array[$2::text])) order by ("name" collate "C") asc, "id" asc limit $3 offset $4',
      parameters: ['db', 'eu', 50, 0],
      limit: 50,
      offset: 0,
    });
  });

  it('makes conditions on nullable columns two-valued so not negates them as OpenZiti does', () => {
    expect(compiled({ filter: 'not externalId = "x"' }).sql).toContain('where (not coalesce("external_id" = $1::text, false))');
  });

  it('compiles set functions, count and isEmpty', () => {
    expect(compiled({ filter: 'allOf(roleAttributes) contains "e"' }).sql).toContain(
      'where not exists (select 1 from unnest("role_attributes") as zq_e(v) where not coalesce((strpos("zq_e"."v", $1) > 0), false))',
    );
    expect(compiled({ filter: 'anyOf(roleAttributes) in ["a", "b"]' }).sql).toContain('("role_attributes" && array[$1::text, $2::text])');
    expect(compiled({ filter: 'count(roleAttributes) > 1 or isEmpty(roleAttributes)' }).sql).toContain(
      'where ((coalesce(cardinality("role_attributes"), 0) > $1::numeric) or (coalesce(cardinality("role_attributes"), 0) = 0))',
    );
  });

  it('reads map keys as bound parameters', () => {
    const c = compiled({ filter: "'tags.x\"; drop' = 1 sort by tags.owner desc" });
    expect(c.sql).toContain('coalesce(("tags" -> $1) = $2::jsonb, false)');
    expect(c.sql).toContain('order by ("tags" -> $3) desc, "id" asc');
    expect(c.parameters.slice(0, 3)).toEqual(['x"; drop', '1', 'owner']);
  });

  it('orders by createdAt then id by default, and by id alone only once', () => {
    expect(compiled({}).sql).toBe('select "id" from "items" order by "created_at" asc, "id" asc limit $1 offset $2');
    expect(compiled({ filter: 'sort by id desc' }).sql).toContain('order by ("id" collate "C") desc limit');
    expect(compiled({ sort: 'cost desc' }).sql).toContain('order by "cost" desc, "id" asc');
  });
});

describe('paging', () => {
  it('lets skip and limit in the filter override the parameters, clamped to 500', () => {
    expect(compiled({ filter: 'skip 7 limit 3', limit: 20, offset: 1 })).toMatchObject({ limit: 3, offset: 7 });
    expect(compiled({ filter: 'limit none' })).toMatchObject({ limit: 500 });
    expect(compiled({ filter: 'limit 100000' })).toMatchObject({ limit: 500 });
    expect(compiled({ limit: 900 })).toMatchObject({ limit: 500 });
    expect(compiled({ filter: 'true', limit: 25, offset: 30 })).toMatchObject({ limit: 25, offset: 30 });
  });

  it('clamps a skip past 100000 and takes a limit of 0 for the default, as OpenZiti\'s store', () => {
    expect(compiled({ filter: 'skip 100001' })).toMatchObject({ offset: 100000 });
    expect(compiled({ filter: 'limit 0' })).toMatchObject({ limit: 10 });
  });
});

describe('type errors', () => {
  const cases: Array<[string, RegExp, number]> = [
    ['nope = 1', /unknown field "nope"; filterable fields are id, name/, 0],
    ['roleAttributes = "eu"', /is a set; read it with anyOf\(\)/, 0],
    ['anyOf(name) = "x"', /is not a set/, 0],
    ['count(name) > 1', /is not a set/, 6],
    ['isEmpty(cost)', /is not a set/, 8],
    ['tags = "x"', /is a map; address a key as tags.<key>/, 0],
    ['name = 5', /expected a string value, found a number/, 7],
    ['cost = "5"', /expected a number value, found a string/, 7],
    ['cost in ["a"]', /expected a number value/, 9],
    ['createdAt > 5', /expected a datetime value/, 12],
    ['isAdmin < true', /cannot compare with a bool/, 10],
    ['name > null', /cannot compare with null/, 7],
    ['cost contains "1"', /"contains" needs a string field/, 5],
    ['name between 1 and 2', /expected a string value, found a number/, 13],
    ['cost', /is a number, not a bool/, 0],
    ['tags.x = datetime(2020-01-01T00:00:00Z)', /cannot be compared with a datetime/, 9],
    ['isEmpty(from places where name = "x")', /sub-queries over "places" are not supported/, 8],
  ];
  it.each(cases)('%s', (filter, reason, position) => {
    const f = failure({ filter });
    expect(f).toMatchObject({ code: 'INVALID_FILTER', field: 'filter' });
    expect(f.reason).toMatch(reason);
    expect(f.position).toBe(position);
  });

  it('answers an unknown or unsortable sort field with INVALID_SORT_IDENTIFIER', () => {
    expect(failure({ filter: 'true sort by nope' })).toMatchObject({ code: 'INVALID_SORT_IDENTIFIER', field: 'filter', position: 13 });
    expect(failure({ filter: 'sort by roleAttributes' })).toMatchObject({ code: 'INVALID_SORT_IDENTIFIER' });
    expect(failure({ filter: 'sort by tags' })).toMatchObject({ code: 'INVALID_SORT_IDENTIFIER' });
    expect(failure({ sort: 'name, nope desc' })).toMatchObject({ code: 'INVALID_SORT_IDENTIFIER', field: 'sort', position: 6 });
    expect(failure({ sort: 'name,' })).toMatchObject({ code: 'INVALID_SORT_IDENTIFIER', field: 'sort', position: 5 });
  });

  it('lists the filterable fields', () => {
    expect(filterableFields(FIELDS)).toEqual(['id', 'name', 'externalId', 'cost', 'isAdmin', 'createdAt', 'roleAttributes', 'tags']);
  });
});

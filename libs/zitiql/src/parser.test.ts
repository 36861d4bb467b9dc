import { describe, expect, it } from 'vitest';
import { isZitiError } from '@edge/errors';
import { parseFilter, parseSort, MAX_DEPTH, MAX_FILTER_LENGTH } from './index.js';

/** The error a parse throws, as code + position + reason. */
function failure(text: string): { code: string; position: number; reason: string } {
  try {
    parseFilter(text);
  } catch (err) {
    if (!isZitiError(err)) throw err;
    const cause = err.fieldCause as { position: number; reason: string };
    return { code: err.code, position: cause.position, reason: cause.reason };
  }
  throw new Error(`parsed: ${text}`);
}

const where = (text: string) => parseFilter(text).where;

describe('parseFilter: operations', () => {
  it('parses each comparison operator with its literal', () => {
    for (const op of ['=', '!=', '<', '<=', '>', '>='] as const) {
      expect(where(`cost ${op} 5`)).toMatchObject({ kind: 'compare', op, left: { kind: 'field', name: 'cost' }, right: { kind: 'number', value: 5 } });
    }
    expect(where('name="a b"')).toMatchObject({ kind: 'compare', right: { kind: 'string', value: 'a b' } });
    expect(where('isAdmin = true')).toMatchObject({ right: { kind: 'bool', value: true } });
    expect(where('isAdmin != FALSE')).toMatchObject({ op: '!=', right: { kind: 'bool', value: false } });
    expect(where('externalId = null')).toMatchObject({ right: { kind: 'null' } });
    expect(where('cost >= -1.5e2')).toMatchObject({ right: { kind: 'number', value: -150 } });
  });

  it('parses datetime literals with fractions and offsets', () => {
    const e = where('createdAt < datetime(2032-09-03T15:36:50Z)');
    expect(e).toMatchObject({ kind: 'compare', op: '<', right: { kind: 'datetime' } });
    expect((e as { right: { value: Date } }).right.value.toISOString()).toBe('2032-09-03T15:36:50.000Z');
    const off = where('createdAt = datetime( 2032-09-03T15:36:50.25+02:00 )') as { right: { value: Date } };
    expect(off.right.value.toISOString()).toBe('2032-09-03T13:36:50.250Z');
  });

  it('parses contains and icontains, negated or not', () => {
    expect(where('name contains "db"')).toMatchObject({ kind: 'contains', negated: false, insensitive: false, right: { value: 'db' } });
    expect(where('name not contains "db"')).toMatchObject({ kind: 'contains', negated: true, insensitive: false });
    expect(where('name icontains "DB"')).toMatchObject({ kind: 'contains', negated: false, insensitive: true });
    expect(where('name NOT ICONTAINS "DB"')).toMatchObject({ kind: 'contains', negated: true, insensitive: true });
    expect(where('name contains 12')).toMatchObject({ kind: 'contains', right: { kind: 'number', value: 12 } });
  });

  it('parses in lists of strings, numbers and datetimes', () => {
    expect(where('name in ["a", "b"]')).toMatchObject({ kind: 'in', negated: false, values: [{ value: 'a' }, { value: 'b' }] });
    expect(where('cost not in [1,2,3]')).toMatchObject({ kind: 'in', negated: true, values: [{ value: 1 }, { value: 2 }, { value: 3 }] });
    expect(where('createdAt in [datetime(2020-01-01T00:00:00Z)]')).toMatchObject({ kind: 'in', values: [{ kind: 'datetime' }] });
  });

  it('parses between for numbers and datetimes', () => {
    expect(where('cost between 1 and 5')).toMatchObject({ kind: 'between', negated: false, low: { value: 1 }, high: { value: 5 } });
    expect(where('createdAt not between datetime(2020-01-01T00:00:00Z) and datetime(2021-01-01T00:00:00Z)')).toMatchObject({ kind: 'between', negated: true });
    expect(where('cost between 1 and 5 and name = "x"')).toMatchObject({ kind: 'and', items: [{ kind: 'between' }, { kind: 'compare' }] });
  });

  it('parses set functions, count and isEmpty', () => {
    expect(where('anyOf(roleAttributes) = "eu"')).toMatchObject({ kind: 'compare', left: { kind: 'anyOf', field: 'roleAttributes' } });
    expect(where('allof( roleAttributes ) contains "e"')).toMatchObject({ kind: 'contains', left: { kind: 'allOf', field: 'roleAttributes' } });
    expect(where('count(roleAttributes) > 2')).toMatchObject({ kind: 'compare', left: { kind: 'count', set: { kind: 'field', name: 'roleAttributes' } } });
    expect(where('isEmpty(roleAttributes)')).toMatchObject({ kind: 'isEmpty', set: { kind: 'field', name: 'roleAttributes' } });
    expect(where('not isEmpty(from places where name = "x" and anyOf(businesses) = "y")')).toMatchObject({
      kind: 'not', expr: { kind: 'isEmpty', set: { kind: 'subquery', entity: 'places', query: { where: { kind: 'and' } } } },
    });
  });

  it('parses dotted and quoted identifiers, bare bool symbols and constants', () => {
    expect(where('tags.env = "prod"')).toMatchObject({ left: { kind: 'field', name: 'tags.env' } });
    expect(where("'tags.my-tag' = 1")).toMatchObject({ left: { kind: 'field', name: 'tags.my-tag' } });
    expect(where('type.name = "User"')).toMatchObject({ left: { name: 'type.name' } });
    expect(where('isAdmin')).toMatchObject({ kind: 'symbol', name: 'isAdmin' });
    expect(where('isAdmin and not disabled')).toMatchObject({ kind: 'and', items: [{ kind: 'symbol' }, { kind: 'not', expr: { kind: 'symbol', name: 'disabled' } }] });
    expect(where('true')).toEqual({ kind: 'const', value: true, pos: 0 });
    expect(where('FALSE')).toEqual({ kind: 'const', value: false, pos: 0 });
  });

  it('reads string escapes', () => {
    expect(where('name = "a\\"b\\\\c\\n\\t\\r\\f"')).toMatchObject({ right: { value: 'a"b\\c\n\t\r\f' } });
  });
});

describe('parseFilter: precedence', () => {
  it('binds and tighter than or', () => {
    expect(where('a = 1 or b = 2 and c = 3')).toMatchObject({ kind: 'or', items: [{ kind: 'compare' }, { kind: 'and' }] });
    expect(where('a = 1 and b = 2 or c = 3')).toMatchObject({ kind: 'or', items: [{ kind: 'and' }, { kind: 'compare' }] });
  });

  it('lets not take the whole expression after it, as the ANTLR grammar does', () => {
    expect(where('not a = 1 and b = 2')).toMatchObject({ kind: 'not', expr: { kind: 'and' } });
    expect(where('a = 1 and not b = 2 or c = 3')).toMatchObject({ kind: 'and', items: [{ kind: 'compare' }, { kind: 'not', expr: { kind: 'or' } }] });
    expect(where('(not a = 1) and b = 2')).toMatchObject({ kind: 'and', items: [{ kind: 'not' }, { kind: 'compare' }] });
  });

  it('groups with parentheses', () => {
    expect(where('(a = 1 or b = 2) and c = 3')).toMatchObject({ kind: 'and', items: [{ kind: 'or' }, { kind: 'compare' }] });
  });
});

describe('parseFilter: sort, skip, limit', () => {
  it('reads the clauses after a condition, case-insensitively', () => {
    expect(parseFilter('name contains "db" SORT BY name DESC, createdAt skip 5 LIMIT 50')).toMatchObject({
      where: { kind: 'contains' },
      sort: [{ field: 'name', direction: 'desc' }, { field: 'createdAt', direction: 'asc' }],
      skip: 5,
      limit: 50,
    });
  });

  it('reads the clauses alone', () => {
    expect(parseFilter('sort by name asc')).toEqual({ sort: [{ field: 'name', direction: 'asc', pos: 8 }] });
    expect(parseFilter('skip 3 limit none')).toEqual({ sort: [], skip: 3, limit: 'none' });
    expect(parseFilter('limit 7')).toEqual({ sort: [], limit: 7 });
    expect(parseFilter('   ')).toEqual({ sort: [] });
    expect(parseFilter('')).toEqual({ sort: [] });
  });

  it('parses the sort parameter', () => {
    expect(parseSort('name desc, id')).toMatchObject([{ field: 'name', direction: 'desc' }, { field: 'id', direction: 'asc' }]);
  });
});

describe('parseFilter: errors name the position and what was expected', () => {
  const cases: Array<[string, number, RegExp]> = [
    ['name =', 6, /expected a value after "=".*end of the filter/],
    ['name = "x" and', 14, /expected a condition/],
    ['name "x"', 5, /expected an operator/],
    ['name = "x" sort name', 16, /expected "by"/],
    ['name = "x" limit -1', 17, /non-negative integer after "limit"/],
    ['skip 1.5', 5, /non-negative integer after "skip"/],
    ['(name = "x"', 11, /expected "\)"/],
    ['name = "x")', 10, /expected "and", "or", "sort by"/],
    ['name = "unterminated', 7, /unterminated string/],
    ['name = "bad \\q escape"', 12, /invalid escape/],
    ['name = "tab\there"', 11, /control character/],
    ['name = #x', 7, /unexpected character "#"/],
    ['name ! "x"', 5, /expected "!="/],
    ['name in []', 9, /expected a value in the list/],
    ['name in ["a", 1]', 14, /expected a string like the first value/],
    ['name in [true]', 9, /string, number or datetime in the list/],
    ['cost between 1 and "x"', 5, /two numbers or two datetimes/],
    ['createdAt < datetime(2020-13-01T00:00:00Z)', 12, /expected datetime\(/],
    ['name not = "x"', 9, /"contains", "icontains", "in" or "between" after "not"/],
    ['name contains true', 14, /string or number after "contains"/],
    ['and = 1', 0, /expected a condition|expected a field name/],
    ['anyOf(and) = "x"', 6, /expected a field name/],
    ['cost = 1e999', 7, /number out of range/],
    ["'' = 1", 0, /quoted identifier/],
    ['sort by', 7, /a field to sort by/],
  ];
  it.each(cases)('%s', (text, position, reason) => {
    const f = failure(text);
    expect(f.code).toBe('INVALID_FILTER');
    expect(f.reason).toMatch(reason);
    expect(f.position).toBe(position);
  });

  it('refuses nesting deeper than the limit and filters longer than the limit', () => {
    const deep = '('.repeat(MAX_DEPTH + 1) + 'a = 1' + ')'.repeat(MAX_DEPTH + 1);
    expect(failure(deep).reason).toMatch(/nesting deeper/);
    expect(failure('not '.repeat(MAX_DEPTH + 1) + 'a = 1').reason).toMatch(/nesting deeper/);
    expect(failure('a = 1 or '.repeat(2000) + 'a = 1').reason).toMatch(/longer than/);
    expect(parseFilter('('.repeat(MAX_DEPTH) + 'a = 1' + ')'.repeat(MAX_DEPTH)).where).toMatchObject({ kind: 'compare' });
    expect(MAX_FILTER_LENGTH).toBeGreaterThan(1000);
  });
});

import { describe, expect, it } from 'vitest';
import { isZitiError } from '@edge/errors';
import { parseBody, parseGoDuration, parsePaging, tags, z } from './index.js';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return isZitiError(e) ? { code: e.code, field: (e.fieldCause as { field?: string })?.field } : { code: 'not-ziti' };
  }
  return undefined;
};

describe('parsePaging', () => {
  it('defaults, clamps and rejects', () => {
    expect(parsePaging({})).toEqual({ limit: 10, offset: 0, every: false, filter: '', sort: '', roleFilter: [], roleSemantic: '' });
    expect(parsePaging({ filter: 'name = "a"', sort: 'name', roleFilter: '#a', roleSemantic: 'AnyOf' })).toMatchObject({ filter: 'name = "a"', sort: 'name', roleFilter: ['#a'], roleSemantic: 'AnyOf' });
    expect(parsePaging({ roleFilter: ['#a', '@b'], filter: ['x', 'y'] })).toMatchObject({ roleFilter: ['#a', '@b'], filter: 'y' });
    expect(parsePaging({ limit: '900', offset: '5' })).toMatchObject({ limit: 500, offset: 5 });
    expect(parsePaging({ limit: '-1' })).toMatchObject({ limit: 500, every: true });
    // As OpenZiti's controller: what parses as an integer is clamped, not refused.
    expect(parsePaging({ limit: '0', offset: '-1' })).toMatchObject({ limit: 10, offset: 0 });
    expect(parsePaging({ limit: '-2', offset: '100001' })).toMatchObject({ limit: 10, offset: 100000, every: false });
    expect(parsePaging({ limit: '+3', offset: '+4' })).toMatchObject({ limit: 3, offset: 4 });
    expect(code(() => parsePaging({ limit: '1.5' }))).toMatchObject({ code: 'INVALID_PAGINATION', field: 'limit' });
    expect(code(() => parsePaging({ limit: 'abc' }))).toMatchObject({ code: 'INVALID_PAGINATION', field: 'limit' });
    expect(parsePaging({ limit: '9223372036854775807', offset: '-9223372036854775808' })).toMatchObject({ limit: 500, offset: 0 });
    expect(code(() => parsePaging({ offset: '9223372036854775808' }))).toMatchObject({ code: 'INVALID_PAGINATION', field: 'offset' });
  });
});

describe('parseBody', () => {
  const schema = z.object({ name: z.string(), tags: tags.optional() });
  it('names the field at fault', () => {
    expect(code(() => parseBody(schema, {}))).toEqual({ code: 'COULD_NOT_VALIDATE', field: 'name' });
    expect(code(() => parseBody(schema, { name: 'x', tags: ['a'] }))).toEqual({ code: 'COULD_NOT_VALIDATE', field: 'tags' });
  });
  it('takes any JSON value in tags, as OpenZiti does', () => {
    const any = { n: 1, b: false, s: 's', z: null, o: { l: [1, 'x', { y: true }] } };
    expect(parseBody(schema, { name: 'x', tags: any })).toEqual({ name: 'x', tags: any });
  });
  it('refuses bodies that are not objects', () => {
    for (const b of [undefined, null, 'text', [1]]) expect(code(() => parseBody(schema, b))?.code).toBe('COULD_NOT_PARSE_BODY');
  });
});

describe('parseGoDuration', () => {
  it('reads Go durations into milliseconds and refuses anything else', () => {
    expect(parseGoDuration('10m')).toBe(600_000);
    expect(parseGoDuration('1h30m')).toBe(5_400_000);
    expect(parseGoDuration('1.5s')).toBe(1500);
    expect(parseGoDuration('250ms')).toBe(250);
    expect(parseGoDuration('0')).toBe(0);
    for (const bad of ['', '10', 'm', '-5m', '5 m', '5d', '1h-2m']) expect(parseGoDuration(bad)).toBeUndefined();
  });
});

describe('parseBody of list bodies', () => {
  it('takes an array for a list schema and refuses an object, and the reverse', () => {
    const list = z.array(z.object({ id: z.string() }));
    expect(parseBody(list, [{ id: 'a' }])).toEqual([{ id: 'a' }]);
    expect(code(() => parseBody(list, { id: 'a' }))).toMatchObject({ code: 'COULD_NOT_PARSE_BODY' });
    expect(code(() => parseBody(z.object({ id: z.string() }), [{ id: 'a' }]))).toMatchObject({ code: 'COULD_NOT_PARSE_BODY' });
    expect(code(() => parseBody(list, [{ id: 1 }]))).toMatchObject({ code: 'COULD_NOT_VALIDATE', field: '0.id' });
  });
});

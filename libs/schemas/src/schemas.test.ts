import { describe, expect, it } from 'vitest';
import { isZitiError } from '@edge/errors';
import { parseBody, parsePaging, tags, z } from './index.js';

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
    expect(parsePaging({})).toEqual({ limit: 10, offset: 0, filter: '', sort: '', roleFilter: [], roleSemantic: '' });
    expect(parsePaging({ filter: 'name = "a"', sort: 'name', roleFilter: '#a', roleSemantic: 'AnyOf' })).toMatchObject({ filter: 'name = "a"', sort: 'name', roleFilter: ['#a'], roleSemantic: 'AnyOf' });
    expect(parsePaging({ roleFilter: ['#a', '@b'], filter: ['x', 'y'] })).toMatchObject({ roleFilter: ['#a', '@b'], filter: 'y' });
    expect(parsePaging({ limit: '900', offset: '5' })).toMatchObject({ limit: 500, offset: 5 });
    expect(code(() => parsePaging({ limit: '1.5' }))).toMatchObject({ code: 'INVALID_PAGINATION', field: 'limit' });
    expect(code(() => parsePaging({ offset: '-1' }))).toMatchObject({ code: 'INVALID_PAGINATION', field: 'offset' });
    expect(code(() => parsePaging({ offset: '100001' }))).toMatchObject({ code: 'INVALID_PAGINATION' });
  });
});

describe('parseBody', () => {
  const schema = z.object({ name: z.string(), tags: tags.optional() });
  it('names the field at fault', () => {
    expect(code(() => parseBody(schema, {}))).toEqual({ code: 'COULD_NOT_VALIDATE', field: 'name' });
    expect(code(() => parseBody(schema, { name: 'x', tags: { a: 1 } }))).toEqual({ code: 'COULD_NOT_VALIDATE', field: 'tags.a' });
  });
  it('refuses bodies that are not objects', () => {
    for (const b of [undefined, null, 'text', [1]]) expect(code(() => parseBody(schema, b))?.code).toBe('COULD_NOT_PARSE_BODY');
  });
});

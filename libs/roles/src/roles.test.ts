import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createSqlOnlyDb } from '@edge/testing';
import { isZitiError } from '@edge/errors';
import { parseRoles, parseSemantic, roleCondition } from './index.js';

const db = createSqlOnlyDb<{ items: { id: string } }>();
const COLS = { attributes: sql.ref('role_attributes'), id: sql.ref('id'), name: sql.ref('name') };

function where(roles: string[], semantic: 'AllOf' | 'AnyOf') {
  const c = db.selectFrom('items').select('id').where(roleCondition(parseRoles(roles, 'roleFilter'), semantic, COLS)).compile();
  return { sql: c.sql.replace('select "id" from "items" where ', ''), parameters: c.parameters };
}

function fieldOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    if (isZitiError(err)) return { code: err.code, ...(err.fieldCause as object) };
    throw err;
  }
  throw new Error('accepted');
}

describe('roles', () => {
  it('splits attributes, ids and #all', () => {
    expect(parseRoles(['#eu', '@abc', '#us'], 'r')).toEqual({ all: false, attributes: ['eu', 'us'], ids: ['abc'] });
    expect(parseRoles(['#all'], 'r')).toEqual({ all: true, attributes: [], ids: [] });
    expect(parseRoles([], 'r')).toEqual({ all: false, attributes: [], ids: [] });
  });

  it('refuses roles without # or @, empty roles and #all with others', () => {
    expect(fieldOf(() => parseRoles(['eu'], 'roleFilter'))).toMatchObject({ code: 'COULD_NOT_VALIDATE', field: 'roleFilter[0]', value: 'eu' });
    expect(fieldOf(() => parseRoles(['#eu', '#'], 'roleFilter'))).toMatchObject({ field: 'roleFilter[1]' });
    expect(fieldOf(() => parseRoles(['#all', '#eu'], 'identityRoles'))).toMatchObject({ field: 'identityRoles' });
  });

  it('reads the semantic, AllOf by default', () => {
    expect(parseSemantic(undefined)).toBe('AllOf');
    expect(parseSemantic('AnyOf')).toBe('AnyOf');
    expect(fieldOf(() => parseSemantic('anyof', 'roleSemantic'))).toMatchObject({ code: 'COULD_NOT_VALIDATE', field: 'roleSemantic' });
  });

  it('compiles AllOf to containment and AnyOf to overlap, with named entities added either way', () => {
    expect(where(['#eu', '#us', '@x'], 'AllOf')).toEqual({
      sql: '(("role_attributes" @> array[$1::text, $2::text]) or ("id" in ($3::text)) or ("name" in ($4::text)))',
      parameters: ['eu', 'us', 'x', 'x'],
    });
    expect(where(['#eu', '#us'], 'AnyOf').sql).toBe('(("role_attributes" && array[$1::text, $2::text]))');
    expect(where(['#all'], 'AnyOf').sql).toBe('true');
    expect(where([], 'AllOf').sql).toBe('false');
  });
});

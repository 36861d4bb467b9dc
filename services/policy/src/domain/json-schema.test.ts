import { describe, expect, it } from 'vitest';
import AjvModule from 'ajv';
import { isZitiError } from '@edge/errors';
import type { Json } from './entity.js';
import { checkSchema, validateConfigData } from './json-schema.js';

const failure = (fn: () => void) => {
  try {
    fn();
  } catch (e) {
    if (isZitiError(e)) return { code: e.code, ...(e.fieldCause as { field: string; reason: string; value: unknown }) };
    throw e;
  }
  return undefined;
};

describe('config data validation', () => {
  // Regression: `^(a+)+$` backtracked exponentially in JavaScript's RegExp; 30 characters took minutes.
  it('runs a catastrophic-backtracking pattern in linear time', () => {
    const schema = { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } };
    const started = performance.now();
    expect(failure(() => validateConfigData(schema, { name: `${'a'.repeat(30)}b` }))).toMatchObject({ code: 'COULD_NOT_VALIDATE', field: 'name' });
    validateConfigData(schema, { name: 'a'.repeat(30) });
    const keyed = { type: 'object', patternProperties: { '^(a+)+$': { type: 'integer' } } };
    validateConfigData(keyed, { [`${'a'.repeat(30)}b`]: 'not checked' });
    expect(performance.now() - started).toBeLessThan(200);
  });

  // Regression: ajv compares every pair of items whose schema names no scalar type (the built-in
  // intercept schemas' inhabitedSet); 30,000 addresses took 4.6 s, 60,000 would take about 20.
  it('checks that the items of a 1 MB array are unique in linear time', () => {
    const schema = {
      type: 'object',
      definitions: { inhabitedSet: { type: 'array', minItems: 1, uniqueItems: true }, listenAddress: { type: 'string', format: 'idn-hostname' } },
      properties: { addresses: { allOf: [{ $ref: '#/definitions/inhabitedSet' }, { items: { $ref: '#/definitions/listenAddress' } }] } },
    };
    const addresses = Array.from({ length: 60_000 }, (_, i) => `host-${i}.example.com`);
    expect(JSON.stringify(addresses).length).toBeGreaterThan(1_000_000);
    const started = performance.now();
    validateConfigData(schema, { addresses });
    expect(failure(() => validateConfigData(schema, { addresses: [...addresses, 'host-7.example.com'] }))).toMatchObject({
      code: 'COULD_NOT_VALIDATE', field: 'addresses', reason: 'must NOT have duplicate items (items ## 7 and 60000 are identical)',
    });
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('finds the duplicate items ajv itself would name, objects equal whatever the order of their keys', () => {
    const oracle = new AjvModule.default({ strict: false });
    const schemas = [{ type: 'array', uniqueItems: true }, { type: 'array', items: { type: 'integer' }, uniqueItems: true }];
    const pool = [0, 1, 2, 'a', 'b', null, true, false, [1, 2], [2, 1], { a: 1, b: [1] }, { b: [1], a: 1 }, { a: 1 }, [], {}];
    const ints = [0, 1, 2, 3, 4];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 300; round++) {
      const schema = schemas[round % 2]!;
      const from = round % 2 ? ints : pool;
      const data = Array.from({ length: random(8) }, () => from[random(from.length)]) as unknown as Json;
      const check = oracle.compile(schema);
      const expected = check(data) ? undefined : { field: '(root)', reason: check.errors![0]!.message };
      expect(failure(() => validateConfigData(schema, data)), JSON.stringify(data)).toEqual(expected && { code: 'COULD_NOT_VALIDATE', ...expected, value: data });
    }
    expect(failure(() => validateConfigData({ type: 'array', uniqueItems: false }, [1, 1] as unknown as Json))).toBeUndefined();
  });

  // Regression: a schema of 5,000 properties was refused as "not a valid JSON schema: Maximum call stack size exceeded".
  it('refuses a schema too large to compile as too large, not as invalid', () => {
    const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`p${i}`, { type: 'string' }])) };
    expect(failure(() => checkSchema(wide))).toMatchObject({ code: 'COULD_NOT_VALIDATE', field: 'schema', reason: 'is too large or too deeply nested to be compiled' });
  });

  it('refuses a pattern the linear engine cannot run when the schema is written', () => {
    expect(failure(() => checkSchema({ type: 'string', pattern: '^(?=a)a$' }))).toMatchObject({ code: 'COULD_NOT_VALIDATE', field: 'schema' });
    expect(failure(() => checkSchema({ type: 'string', pattern: '(a)\\1' }))).toMatchObject({ field: 'schema' });
    checkSchema({ type: 'string', pattern: '^0[xX][0-9a-fA-F]{4}$' });
  });

  it('names the failing value as gojsonschema does: its path, (root) for the data itself', () => {
    const schema = {
      type: 'object', required: ['port'], additionalProperties: false,
      properties: { port: { type: 'integer' }, ranges: { type: 'array', items: { type: 'object', properties: { low: { type: 'integer' } } } } },
    };
    expect(failure(() => validateConfigData(schema, {}))).toMatchObject({ field: '(root)', reason: 'port is required' });
    expect(failure(() => validateConfigData(schema, { port: 1, other: 1 }))).toMatchObject({ field: '(root)', reason: 'Additional property other is not allowed' });
    expect(failure(() => validateConfigData(schema, { port: 'x' }))).toMatchObject({ field: 'port', value: 'x' });
    expect(failure(() => validateConfigData(schema, { port: 1, ranges: [{ low: 'x' }] }))).toMatchObject({ field: 'ranges.0.low', value: 'x' });
  });
});

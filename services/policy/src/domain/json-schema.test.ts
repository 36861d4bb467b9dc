import { describe, expect, it } from 'vitest';
import { isZitiError } from '@edge/errors';
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

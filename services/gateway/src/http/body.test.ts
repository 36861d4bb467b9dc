import { describe, expect, it } from 'vitest';
import { fieldWithNul, nestedDeeperThan } from './body.js';

describe('JSON nesting depth', () => {
  it('counts arrays and objects inside one another, not brackets in strings', () => {
    expect(nestedDeeperThan('{"a":[{"b":[1]}]}', 4)).toBe(false);
    expect(nestedDeeperThan('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(nestedDeeperThan(`{"s":"${'[{'.repeat(500)}"}`, 1)).toBe(false);
    expect(nestedDeeperThan(`{"s":"a\\"[[[["}`, 1)).toBe(false);
    expect(nestedDeeperThan('[[],[],[],[]]', 2)).toBe(false);
  });
});

describe('the field holding a NUL', () => {
  it('names it as body validation names fields', () => {
    expect(fieldWithNul({ name: 'ok', tags: { env: 'a\u0000' } })).toEqual({ field: 'tags.env', reason: 'must not contain a NUL character' });
    expect(fieldWithNul({ roleAttributes: ['a', 'b\u0000'] })?.field).toBe('roleAttributes.1');
    expect(fieldWithNul({ data: { a: [{ b: '\u0000' }] } })?.field).toBe('data.a.0.b');
    expect(fieldWithNul('\u0000')?.field).toBe('(body)');
    expect(fieldWithNul({ tags: { ['k\u0000']: 1 } })).toEqual({ field: 'tags', reason: 'a name in it contains a NUL character' });
  });

  it('finds none in clean bodies of any shape', () => {
    for (const v of [{}, [], null, 1, true, 'x', { a: [{ b: null, c: 2, d: 'e' }] }]) expect(fieldWithNul(v)).toBeUndefined();
  });
});

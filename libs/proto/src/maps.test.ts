import { describe, expect, it } from 'vitest';
import { stringMap } from './maps.js';

describe('stringMap', () => {
  it('keeps the string entries of an object', () => {
    expect(stringMap({ tls: 'tls:er:3022', ws: 'ws:er:3023' })).toEqual({ tls: 'tls:er:3022', ws: 'ws:er:3023' });
  });

  it('leaves out entries whose value is not a string, which the API could not answer with', () => {
    expect(stringMap({ tls: 'tls:er:3022', port: 3022, nested: { a: 'b' }, none: null, list: ['x'] })).toEqual({ tls: 'tls:er:3022' });
  });

  it('reads anything but an object as empty', () => {
    for (const v of [null, undefined, 'tls:er:3022', 42, true, ['tls:er:3022']]) expect(stringMap(v)).toEqual({});
  });
});

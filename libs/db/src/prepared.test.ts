import { describe, expect, it } from 'vitest';
import { preparedAmong, preparedName } from './prepared.js';

describe('preparedAmong', () => {
  it('names the first texts of its call site, up to its bound, and leaves later ones unnamed', () => {
    const tag = `t${Date.now()}`;
    const prepare = preparedAmong(2);
    prepare(`select 1 -- ${tag} a`);
    prepare(`select 1 -- ${tag} a`);
    prepare(`select 1 -- ${tag} b`);
    prepare(`select 1 -- ${tag} c`);
    expect(preparedName(`select 1 -- ${tag} a`)).toMatch(/^edge_/);
    expect(preparedName(`select 1 -- ${tag} b`)).toMatch(/^edge_/);
    expect(preparedName(`select 1 -- ${tag} c`)).toBeUndefined();
    // Another call site has a bound of its own.
    preparedAmong(1)(`select 1 -- ${tag} c`);
    expect(preparedName(`select 1 -- ${tag} c`)).toMatch(/^edge_/);
  });
});

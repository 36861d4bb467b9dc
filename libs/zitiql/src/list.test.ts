import { describe, expect, it } from 'vitest';
import { MAX_LIMIT, planList, UNBOUNDED } from './index.js';
import { FIELDS } from './test-fixtures.js';

describe('planList', () => {
  it('reuses the plan of a request asked before, and plans anew when anything differs', () => {
    const asked = { filter: 'name contains "db" sort by name', limit: 20, offset: 0 };
    const first = planList(FIELDS, asked);
    expect(planList(FIELDS, { ...asked })).toBe(first);
    expect(planList(FIELDS, { ...asked, offset: 20 })).not.toBe(first);
    expect(planList(FIELDS, { ...asked, offset: 20 }).offset).toBe(20);
    expect(planList(FIELDS, { ...asked, filter: 'name contains "web" sort by name' })).not.toBe(first);
  });

  it('refuses a bad request every time it is asked', () => {
    for (let i = 0; i < 2; i++) expect(() => planList(FIELDS, { filter: 'name contains' })).toThrow();
  });

  it('bounds an unbounded list only by a limit in its filter, unclamped', () => {
    expect(planList(FIELDS, {}).limit).toBe(10);
    expect(planList(FIELDS, { filter: 'true limit 1000' }).limit).toBe(MAX_LIMIT);
    expect(planList(FIELDS, {}, { unbounded: true }).limit).toBe(UNBOUNDED);
    expect(planList(FIELDS, { filter: 'true limit none' }, { unbounded: true }).limit).toBe(UNBOUNDED);
    expect(planList(FIELDS, { filter: 'true skip 3 limit 1000' }, { unbounded: true })).toMatchObject({ limit: 1000, offset: 3 });
  });
});

import { describe, expect, it } from 'vitest';
import { listMeta, listParams, MAX_LIMIT, planList, UNBOUNDED } from './index.js';
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

  it('plans every row (limit=-1, limit none) a page at a time, from where the caller\'s rows end', () => {
    expect(planList(FIELDS, { every: true, limit: MAX_LIMIT, offset: 4 })).toMatchObject({ limit: MAX_LIMIT, offset: 4, every: { offset: 4 } });
    expect(planList(FIELDS, { every: true, offset: 4, continueAt: 500 })).toMatchObject({ limit: MAX_LIMIT, offset: 504, every: { offset: 4 } });
    expect(planList(FIELDS, { filter: 'true skip 3 limit none', offset: 9, continueAt: 1000 })).toMatchObject({ offset: 1003, every: { offset: 3 } });
    // The filter's limit wins over limit=-1; an unbounded list is answered whole as before.
    const limited = planList(FIELDS, { every: true, filter: 'true limit 4' });
    expect(limited).toMatchObject({ limit: 4, offset: 0 });
    expect(limited.every).toBeUndefined();
    expect(planList(FIELDS, { every: true }, { unbounded: true }).every).toBeUndefined();
    // Its meta says so, with the offset asked; a ListQuery carries both through.
    const plan = planList(FIELDS, listParams({ limit: 500, offset: 2, filter: '', sort: '', every: true, continueAt: 500 }));
    expect(listMeta(plan, 1234, FIELDS)).toMatchObject({ totalCount: 1234, limit: 500, offset: 2, every: true });
    expect(listMeta(planList(FIELDS, {}), 3, FIELDS)).toMatchObject({ limit: 10, offset: 0, every: false });
  });
});

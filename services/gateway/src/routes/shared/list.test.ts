import { describe, expect, it } from 'vitest';
import type { common } from '@edge/proto';
import { everyRow } from './list.js';

/** An owning service answering `limit none` a page of `size` at a time over `total` rows. */
function owner(total: number, size: number, every = true) {
  const asked: common.ListQuery[] = [];
  const page = async (query: common.ListQuery) => {
    asked.push(query);
    const from = query.continueAt ?? 0;
    const rows = Array.from({ length: Math.max(0, Math.min(size, total - from)) }, (_, i) => from + i);
    return { rows, meta: { totalCount: total, limit: size, offset: 0, filterableFields: [], every } };
  };
  return { page, asked };
}

describe('everyRow', () => {
  it('asks on from where the rows end until it holds every row the filter selects', async () => {
    const { page, asked } = owner(1001, 500);
    expect(await everyRow('id in ["a"]', page)).toEqual(Array.from({ length: 1001 }, (_, i) => i));
    expect(asked.map((q) => [q.filter, q.continueAt])).toEqual([['id in ["a"] limit none', 0], ['id in ["a"] limit none', 500], ['id in ["a"] limit none', 1000]]);
  });

  it('takes one page from a service that does not page every row, and stops at an empty page', async () => {
    const old = owner(1001, 500, false);
    expect(await everyRow('true', old.page)).toHaveLength(500);
    expect(old.asked).toHaveLength(1);
    let calls = 0;
    const shrunk = async () => ({ rows: calls++ === 0 ? [1] : [], meta: { totalCount: 900, limit: 500, offset: 0, filterableFields: [], every: true } });
    expect(await everyRow('true', shrunk)).toEqual([1]);
    expect(calls).toBe(2);
  });
});

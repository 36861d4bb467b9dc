import { ZitiError, notFound } from '@edge/errors';
import type { common } from '@edge/proto';
import { describe, expect, it } from 'vitest';
import { ALL_PAGES_LIMIT, allPages, orMissing } from './peer-calls.js';

describe('allPages', () => {
  const listOf = (n: number) => {
    const asked: common.ListQuery[] = [];
    const read = async (q: common.ListQuery) => {
      asked.push(q);
      const { limit = 0, offset = 0 } = q; // an absent field decodes as proto3's 0
      const items = Array.from({ length: Math.max(0, Math.min(limit, n - offset)) }, (_, i) => offset + i);
      return { items, meta: { totalCount: n } as common.ListMeta__Output };
    };
    return { asked, read };
  };

  it('reads every page until the total, asking each page once', async () => {
    const l = listOf(ALL_PAGES_LIMIT * 2 + 3);
    const items = await allPages(l.read);
    expect(items).toHaveLength(ALL_PAGES_LIMIT * 2 + 3);
    expect(new Set(items).size).toBe(items.length);
    expect(l.asked.map((q) => q.offset)).toEqual([0, ALL_PAGES_LIMIT, ALL_PAGES_LIMIT * 2]);
  });

  it('stops at an empty page even when the total claims more (rows deleted meanwhile)', async () => {
    const pages = [[1, 2], []];
    const items = await allPages(async () => ({ items: pages.shift()!, meta: { totalCount: 10 } as common.ListMeta__Output }));
    expect(items).toEqual([1, 2]);
  });
});

describe('orMissing', () => {
  it('turns NOT_FOUND into undefined and lets other errors through', async () => {
    expect(await orMissing(Promise.resolve(7))).toBe(7);
    expect(await orMissing(Promise.reject(notFound('identity', 'x')))).toBeUndefined();
    await expect(orMissing(Promise.reject(new ZitiError('UNAVAILABLE')))).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});

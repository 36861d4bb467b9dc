/**
 * Helpers for lists that relate entities of different owners through policies.
 */
import type { common } from '@edge/proto';

const EVERYTHING: common.ListQuery = { limit: 500, offset: 0, filter: '', sort: '', roleFilter: [], roleSemantic: '' };

/** Every page of a list (the policies selecting one entity are few; this reads them all). */
export async function allPages<T>(page: (query: common.ListQuery) => Promise<{ items: T[]; meta: common.ListMeta__Output | null }>): Promise<T[]> {
  const items: T[] = [];
  for (let offset = 0; ; offset += 500) {
    const p = await page({ ...EVERYTHING, offset });
    items.push(...p.items);
    if (p.items.length === 0 || items.length >= Number(p.meta?.totalCount ?? 0)) return items;
  }
}

/** The role lists (each with its policy's semantic) a set of policies use for one kind of entity. */
export function roleSelections<P extends { semantic: string }>(policies: P[], roles: (p: P) => string[]) {
  return { selections: policies.map((p) => ({ roles: roles(p), semantic: p.semantic })) };
}

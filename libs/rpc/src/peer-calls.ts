/**
 * What callers of another service's list and get methods repeat: reading every page of a list,
 * and treating NOT_FOUND as "absent" rather than an error.
 */
import { isZitiError } from '@edge/errors';
import type { common } from '@edge/proto';

/** The page size every-page reads ask for. */
export const ALL_PAGES_LIMIT = 500;

/** A query for one page of everything, from `offset`. */
export const everythingFrom = (offset: number): common.ListQuery =>
  ({ limit: ALL_PAGES_LIMIT, offset, filter: '', sort: '', roleFilter: [], roleSemantic: '' });

/**
 * Every item of a list, page by page until a page is empty or the total is reached. `page` is
 * given the query of each page (a caller may add a filter or sort to it).
 */
export async function allPages<T>(page: (query: common.ListQuery) => Promise<{ items: T[]; meta: common.ListMeta__Output | null | undefined }>): Promise<T[]> {
  const items: T[] = [];
  for (let offset = 0; ; offset += ALL_PAGES_LIMIT) {
    const p = await page(everythingFrom(offset));
    items.push(...p.items);
    if (p.items.length === 0 || items.length >= Number(p.meta?.totalCount ?? 0)) return items;
  }
}

/** True when `err` is the NOT_FOUND of an entity that does not exist. */
export const isNotFound = (err: unknown): boolean => isZitiError(err) && err.code === 'NOT_FOUND';

/** The value of `call`, or undefined when it answered NOT_FOUND; other errors propagate. */
export async function orMissing<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

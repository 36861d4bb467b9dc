/**
 * The two ends of every list route: the query string → edge.common.v1.ListQuery, and the
 * service's ListMeta → the envelope's `meta.pagination` and `meta.filterableFields`.
 */
import type { FastifyRequest } from 'fastify';
import { list } from '@edge/envelope';
import { parsePaging } from '@edge/schemas';
import type { common } from '@edge/proto';
import { continueAt, followPages } from '../../http/every-row.js';

/**
 * The list parameters of a request, checked for form (the owning service parses the filter);
 * for a further page of an every-row list, where it starts (see http/every-row.ts).
 */
export function listQuery(req: FastifyRequest): common.ListQuery {
  return { ...parsePaging(req.query as Record<string, unknown>), continueAt: continueAt(req) };
}

/** The list envelope of a page; a page of every row says `limit: -1`, as OpenZiti's controller does. */
export function listBody<T>(data: T[], meta: (Omit<common.ListMeta__Output, 'every'> & { every?: boolean }) | null | undefined) {
  const m = meta ?? { totalCount: 0, limit: 0, offset: 0, filterableFields: [] };
  return list(data, { limit: m.every ? -1 : m.limit, offset: m.offset, totalCount: Number(m.totalCount) }, m.filterableFields);
}

/**
 * Every row the filter selects, for what the gateway reads for itself (the names a page renders):
 * `limit none` makes the owning service answer a page at a time (ListMeta.every), and this asks
 * on from where the rows end (see followPages).
 */
export async function everyRow<T>(
  filter: string,
  page: (query: common.ListQuery) => Promise<{ rows: T[]; meta: common.ListMeta__Output | null | undefined }>,
): Promise<T[]> {
  const from = async (held: number) => {
    const { rows, meta } = await page({ limit: 0, offset: 0, filter: `${filter} limit none`, sort: '', roleFilter: [], roleSemantic: '', continueAt: held });
    return { rows, wanted: Number(meta?.totalCount ?? 0) - (meta?.offset ?? 0), every: meta?.every === true };
  };
  const first = await from(0);
  // A service that does not page every row (a rolling upgrade) answered what it holds in one.
  return first.every ? followPages(first, async (held) => {
    const next = await from(held);
    return next.every ? next : undefined;
  }) : first.rows;
}

/**
 * The two ends of every list route: the query string → edge.common.v1.ListQuery, and the
 * service's ListMeta → the envelope's `meta.pagination` and `meta.filterableFields`.
 */
import type { FastifyRequest } from 'fastify';
import { list } from '@edge/envelope';
import { parsePaging } from '@edge/schemas';
import type { common } from '@edge/proto';
import { continueAt } from '../../http/every-row.js';

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
 * on from where the rows end.
 */
export async function everyRow<T>(
  filter: string,
  page: (query: common.ListQuery) => Promise<{ rows: T[]; meta: common.ListMeta__Output | null | undefined }>,
): Promise<T[]> {
  const rows: T[] = [];
  for (;;) {
    const next = await page({ limit: 0, offset: 0, filter: `${filter} limit none`, sort: '', roleFilter: [], roleSemantic: '', continueAt: rows.length });
    rows.push(...next.rows);
    const wanted = Number(next.meta?.totalCount ?? 0) - (next.meta?.offset ?? 0);
    if (!next.meta?.every || next.rows.length === 0 || rows.length >= wanted) return rows;
  }
}

/**
 * The two ends of every list route: the query string → edge.common.v1.ListQuery, and the
 * service's ListMeta → the envelope's `meta.pagination` and `meta.filterableFields`.
 */
import type { FastifyRequest } from 'fastify';
import { list } from '@edge/envelope';
import { parsePaging } from '@edge/schemas';
import type { common } from '@edge/proto';

/** The list parameters of a request, checked for form (the owning service parses the filter). */
export function listQuery(req: FastifyRequest): common.ListQuery {
  return parsePaging(req.query as Record<string, unknown>);
}

/** The list envelope of a page. */
export function listBody<T>(data: T[], meta: common.ListMeta__Output | null | undefined) {
  const m = meta ?? { totalCount: 0, limit: 0, offset: 0, filterableFields: [] };
  return list(data, { limit: m.limit, offset: m.offset, totalCount: Number(m.totalCount) }, m.filterableFields);
}

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

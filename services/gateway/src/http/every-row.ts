/**
 * Lists asked for every row (`limit=-1`, or `limit none` in the filter), answered whole as
 * OpenZiti's controller answers them: the owning service sends one page of at most 500 rows at a
 * time (its page says `limit: -1`), and the route runs again from where the rows it holds end
 * until it holds them all. No gRPC answer carries more than a page, and each page's look-ups
 * elsewhere (enrollments, summaries) stay as small as they are for any page.
 */
import type { FastifyRequest } from 'fastify';

const held = new WeakMap<FastifyRequest, number>();

/** Rows of an every-row list this request already holds: where the next page starts past the offset (0 first). */
export function continueAt(req: FastifyRequest): number {
  return held.get(req) ?? 0;
}

interface EveryRowPage {
  data: unknown[];
  meta: { pagination: { limit: number; offset: number; totalCount: number } };
}

const lastValue = (raw: unknown): unknown => (Array.isArray(raw) ? raw[raw.length - 1] : raw);

/**
 * Whether the request may ask for every row: `limit=-1`, or a filter naming `limit none` (which
 * only the owning service tells for sure). Routes that answer JSON already encoded are read back
 * only then.
 */
function mayAskEveryRow(req: FastifyRequest): boolean {
  const query = (req.query ?? {}) as Record<string, unknown>;
  const limit = lastValue(query.limit);
  const filter = lastValue(query.filter);
  return (typeof limit === 'string' && /^-0*1$/.test(limit)) || (typeof filter === 'string' && /\blimit\s+none\b/i.test(filter));
}

/** The body as a page of an every-row list, if it is one (JSON already encoded is read back when `encoded`). */
function everyRowPage(body: unknown, encoded: boolean): EveryRowPage | undefined {
  let value = body;
  if (Buffer.isBuffer(body)) {
    if (!encoded) return undefined;
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      return undefined;
    }
  }
  const page = value as Partial<EveryRowPage> | undefined;
  return Array.isArray(page?.data) && page.meta?.pagination?.limit === -1 ? (page as EveryRowPage) : undefined;
}

/** One page of an every-row list: its rows, and how many rows the list holds past its offset. */
export interface RowsPage<T> {
  rows: T[];
  wanted: number;
}

/**
 * Every row of an every-row list from its first page on: asks for the page starting past the
 * rows held (`next`) until it holds `wanted`. Stops at an empty or missing page, or after as many
 * pages (of the first one's size) as the rows fill: rows deleted or added meanwhile shift what a
 * later page holds, as between any two pages.
 */
export async function followPages<T>(first: RowsPage<T>, next: (held: number) => Promise<RowsPage<T> | undefined>): Promise<T[]> {
  const rows = [...first.rows];
  for (let more = Math.ceil(first.wanted / Math.max(first.rows.length, 1)); rows.length < first.wanted && more > 0; more--) {
    const page = await next(rows.length);
    if (!page || page.rows.length === 0) break;
    rows.push(...page.rows);
  }
  return rows;
}

/**
 * Runs a route's handler (`page`) and, when it answered a page of an every-row list, again for
 * each further page (see {@link followPages}), joining their rows into the first page's envelope.
 */
export async function withEveryRow<R extends { body: unknown; contentType?: string }>(req: FastifyRequest, page: () => Promise<R>): Promise<R> {
  const first = await page();
  const encoded = Buffer.isBuffer(first.body) && mayAskEveryRow(req);
  const list = everyRowPage(first.body, encoded);
  if (!list) return first;
  const wanted = list.meta.pagination.totalCount - list.meta.pagination.offset;
  try {
    const data = await followPages({ rows: list.data, wanted }, async (rows) => {
      held.set(req, rows);
      const next = everyRowPage((await page()).body, encoded);
      return next && { rows: next.data, wanted };
    });
    // Encoded again by the router, as any JSON answer.
    return { ...first, body: { ...list, data }, contentType: undefined };
  } finally {
    held.delete(req);
  }
}

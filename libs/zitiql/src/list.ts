/**
 * One list request end to end: paging parameters + filter + sort → a plan (where, order, limit,
 * offset) → the page and the total count. Every list of every service goes through here, so
 * limits, ordering and errors are the same everywhere (WIRE.md "Lists and the filter language").
 */
import { sql, type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { isZitiError } from '@edge/errors';
import type { SortField } from './ast.js';
import { compileWhere } from './compile.js';
import { queryError, type ListParam } from './errors.js';
import { resolveField, type FieldMap } from './fields.js';
import { parseFilter, parseSort } from './parser.js';

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 500;
export const MAX_OFFSET = 100_000;
/** The limit of an unbounded list (see {@link ListOptions.unbounded}) whose filter names none. */
export const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** What a caller asked for; `limit`/`offset` are already known to be non-negative integers. */
export interface ListParams {
  limit?: number;
  offset?: number;
  filter?: string;
  /** The `sort` parameter (`name desc, createdAt`), used when the filter has no `sort by`. */
  sort?: string;
  /** `limit=-1`: every row, unless the filter names a limit (answered a page at a time, see {@link ListPlan.every}). */
  every?: boolean;
  /** Rows of an every-row list the caller already holds: the page starts that far past the offset. */
  continueAt?: number;
  /**
   * The caller reads no total (a reconciliation paging by `id > last`): the page is read alone
   * and the total is 0. A count of every row past a cursor, on each page, reads the table once
   * per page. An every-row list is counted still: its caller stops by the total.
   */
  withoutTotal?: boolean;
}

/** How to run the list. */
export interface ListPlan {
  where?: Expression<SqlBool>;
  orderBy: RawBuilder<unknown>[];
  limit: number;
  offset: number;
  /**
   * Every row was asked for (`limit=-1`, `limit none`): this is one page of them, of at most
   * {@link MAX_LIMIT} rows, `continueAt` rows past the asked `offset`. The caller asks again
   * until it holds them all, so no answer carries more than a page.
   */
  every?: { offset: number };
  /** No total is read (ListParams.withoutTotal); never set with `every`. */
  withoutTotal?: boolean;
}

/** Per-resource defaults. */
export interface ListOptions {
  /** Sort when none is asked for; default `createdAt` when the map has it, else `id`. */
  defaultSort?: string;
  /**
   * Only a `limit` in the filter bounds the page, unclamped; without one (or with `limit none`)
   * every row is answered. For lists OpenZiti's controller answers whole (role attributes).
   */
  unbounded?: boolean;
}

/**
 * Parses, checks and compiles a list request. `sort by`, `skip` and `limit` inside the filter
 * override the parameters (as controller/api_impl/query_options.go in OpenZiti); larger limits
 * are clamped to 500, and `limit none` (or `limit=-1`) asks for every row, a page at a time; the
 * order always ends with `id` so pages are stable.
 */
export function planList(fields: FieldMap, params: ListParams, options: ListOptions = {}): ListPlan {
  // A plan is a pure function of its inputs and is never changed (withCondition makes a new one),
  // so the plans of recent requests are reused: a console or SDK asks the same lists again and again.
  let plans = recentPlans.get(fields);
  if (!plans) recentPlans.set(fields, (plans = new Map()));
  const key = JSON.stringify([
    params.filter ?? '', params.sort ?? '', params.limit ?? null, params.offset ?? null, params.every ?? false, params.continueAt ?? 0,
    params.withoutTotal ?? false, options.defaultSort ?? null, options.unbounded ?? false,
  ]);
  const known = plans.get(key);
  if (known) return known;
  const plan = compilePlan(fields, params, options);
  if (plans.size >= RECENT_PLANS) plans.delete(plans.keys().next().value!);
  plans.set(key, plan);
  return plan;
}

/** Plans kept per field map, the oldest dropped first. */
const RECENT_PLANS = 256;
const recentPlans = new WeakMap<FieldMap, Map<string, ListPlan>>();

function compilePlan(fields: FieldMap, params: ListParams, options: ListOptions): ListPlan {
  const text = params.filter ?? '';
  const query = parseFilter(text);
  let sort = query.sort.length > 0 ? { fields: query.sort, param: 'filter' as ListParam, text } : undefined;
  if (!sort && params.sort && params.sort.trim() !== '') sort = { fields: sortParam(params.sort), param: 'sort', text: params.sort };
  // As OpenZiti's store (checkLimits): a skip past the furthest is clamped.
  const offset = Math.min(query.skip ?? params.offset ?? 0, MAX_OFFSET);
  const where = query.where ? compileWhere(query.where, fields, text) : undefined;
  const order = orderBy(fields, sort?.fields ?? defaultSort(fields, options), sort?.param ?? 'sort', sort?.text ?? '');
  // The filter's limit over the parameter's: `limit none`, or `limit=-1` with none in the filter.
  const every = !options.unbounded && (query.limit === 'none' || (query.limit === undefined && params.every === true));
  if (every) return { where, orderBy: order, limit: MAX_LIMIT, offset: offset + (params.continueAt ?? 0), every: { offset } };
  return { where, orderBy: order, limit: pageLimit(query.limit, params.limit, options.unbounded ?? false), offset, ...(params.withoutTotal ? { withoutTotal: true } : {}) };
}

/**
 * The rows of a page that is not every row's: the filter's `limit` over the parameter's, clamped
 * to {@link MAX_LIMIT} (0 is the default, as OpenZiti's store's checkLimits); of an unbounded
 * list, only the filter's, unclamped, and every row without one (or with `limit none`).
 */
function pageLimit(inFilter: number | 'none' | undefined, asked: number | undefined, unbounded: boolean): number {
  if (unbounded) return typeof inFilter === 'number' ? inFilter : UNBOUNDED;
  return Math.min((typeof inFilter === 'number' && inFilter > 0 ? inFilter : undefined) ?? asked ?? DEFAULT_LIMIT, MAX_LIMIT);
}

function sortParam(text: string): SortField[] {
  try {
    return parseSort(text);
  } catch (err) {
    if (!isZitiError(err)) throw err;
    const cause = err.fieldCause as { position?: number; reason?: string } | undefined;
    throw queryError('INVALID_SORT_IDENTIFIER', 'sort', text, cause?.position ?? 0, (cause?.reason ?? 'invalid sort').replace(/ at position \d+$/, ''));
  }
}

function defaultSort(fields: FieldMap, options: ListOptions): SortField[] {
  const name = options.defaultSort ?? (Object.hasOwn(fields, 'createdAt') ? 'createdAt' : 'id');
  return [{ field: name, direction: 'asc', pos: 0 }];
}

function orderBy(fields: FieldMap, sort: SortField[], param: ListParam, text: string): RawBuilder<unknown>[] {
  const terms = sort.map((s) => {
    const f = resolveField(fields, s.field);
    if (!f || !f.def.sortable || (f.def.type === 'map' && f.key === undefined)) {
      const sortable = Object.entries(fields).filter(([, d]) => d.sortable).map(([n, d]) => (d.type === 'map' ? `${n}.<key>` : n));
      throw queryError('INVALID_SORT_IDENTIFIER', param, text, s.pos, `cannot sort by ${JSON.stringify(s.field)}; sortable fields are ${sortable.join(', ')}`);
    }
    const expr = f.key !== undefined ? sql`(${f.def.expr} -> ${f.key})` : f.def.type === 'string' ? sql`(${f.def.expr} collate "C")` : f.def.expr;
    return sql`${expr} ${sql.raw(s.direction)}`;
  });
  const id = fields.id;
  if (id && !sort.some((s) => s.field === 'id')) terms.push(sql`${id.expr} asc`);
  return terms;
}

/** Narrows a query by extra conditions (e.g. a role filter) on top of the plan's filter. */
export function withCondition(plan: ListPlan, cond: Expression<SqlBool> | undefined): ListPlan {
  if (!cond) return plan;
  return { ...plan, where: plan.where ? sql<SqlBool>`(${plan.where} and ${cond})` : cond };
}

// The builders are generic over any table of any schema; the page's row type comes from `select`.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySelect = SelectQueryBuilder<any, any, any>;

/**
 * Runs a plan over `from` (a `selectFrom` without selections): the page with the row shape
 * `select` gives it, and the total count under the same conditions. By default the two are separate statements (so a
 * page of a large table can stop early on an index); with `inlineCount` the total rides on the
 * page's rows as a window count, for queries whose every row must be computed anyway (an
 * evaluation whose CTEs would otherwise run twice). An empty page past the end still counts.
 * `prepare` is given the page statement's text when the plan has no filter, before it runs (to
 * have it prepared by name, `@edge/db` preparedAmong).
 */
export async function runList<O>(
  from: AnySelect,
  plan: ListPlan,
  select: (qb: AnySelect) => SelectQueryBuilder<never, never, O>,
  opts: { inlineCount?: boolean; prepare?: (text: string) => void } = {},
): Promise<{ rows: O[]; total: number }> {
  const filtered = plan.where ? from.where(plan.where) : from;
  let page = select(filtered) as unknown as AnySelect;
  for (const term of plan.orderBy) page = page.orderBy(term);
  const count = async () => Number((await (filtered.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow() as Promise<{ n: string | number }>)).n);
  if (plan.withoutTotal) return { rows: await (page.limit(plan.limit).offset(plan.offset).execute() as Promise<O[]>), total: 0 };
  if (opts.inlineCount) {
    const query = page.select(sql<string>`count(*) over ()`.as('__total')).limit(plan.limit).offset(plan.offset);
    // Only a page without a filter: its text is one of a few (its order), a filter's is the caller's.
    if (opts.prepare && !plan.where) opts.prepare(query.compile().sql);
    const raw = await (query.execute() as Promise<Array<O & { __total: string }>>);
    const total = raw.length > 0 ? Number(raw[0]!.__total) : plan.offset > 0 ? await count() : 0;
    return { rows: raw.map(({ __total: _, ...row }) => row as O), total };
  }
  const [rows, total] = await Promise.all([page.limit(plan.limit).offset(plan.offset).execute() as Promise<O[]>, count()]);
  return { rows, total };
}

/** The list parameters as they travel between services (edge.common.v1.ListQuery). */
export interface ListQueryMessage {
  limit: number;
  offset: number;
  filter: string;
  sort: string;
  every?: boolean;
  continueAt?: number;
  withoutTotal?: boolean;
}

/** Reads a ListQuery message; a 0 limit means the default, as protobuf cannot tell unset from 0. */
export function listParams(q: ListQueryMessage | null | undefined): ListParams {
  if (!q) return {};
  return { limit: q.limit || undefined, offset: q.offset, filter: q.filter, sort: q.sort, every: q.every || undefined, continueAt: q.continueAt || undefined, withoutTotal: q.withoutTotal || undefined };
}

/** The page meta of a list answer (edge.common.v1.ListMeta); an every-row page says so, with the offset asked. */
export function listMeta(plan: ListPlan, totalCount: number, fields: FieldMap) {
  return { totalCount, limit: plan.limit, offset: plan.every?.offset ?? plan.offset, filterableFields: Object.keys(fields), every: plan.every !== undefined };
}

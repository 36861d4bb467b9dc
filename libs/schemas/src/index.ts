/**
 * Shared zod pieces for HTTP input, named as in the OpenZiti specs, and the one place where a
 * zod failure becomes an OpenZiti field error.
 */
import { z } from 'zod';
import { ZitiError, fieldError } from '@edge/errors';
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET } from '@edge/zitiql';

/**
 * `tags` / `appData`: a map whose values may be any JSON value (numbers, booleans, null, nested
 * objects and arrays), as OpenZiti's `tags` (map[string]interface{}) takes them.
 */
export const tags = z.record(z.string(), z.json());

/** `attributes`: role attributes; null is accepted and means none. */
export const attributes = z.array(z.string().min(1).max(1000)).max(1000).nullable();

/** `terminatorCost`: 0..65535. */
export const terminatorCost = z.number().int().min(0).max(65535);

/** `terminatorPrecedence`. */
export const terminatorPrecedence = z.enum(['default', 'required', 'failed']);

/** `envInfo` an authenticating client may send. */
export const envInfo = z.object({
  arch: z.string().max(255).optional(),
  domain: z.string().max(253).optional(),
  hostname: z.string().max(253).optional(),
  os: z.string().max(255).optional(),
  osRelease: z.string().max(255).optional(),
  osVersion: z.string().max(255).optional(),
});

/** `sdkInfo` an authenticating client may send. */
export const sdkInfo = z.object({
  appId: z.string().max(255).optional(),
  appVersion: z.string().max(255).optional(),
  branch: z.string().max(255).optional(),
  revision: z.string().max(255).optional(),
  type: z.string().max(255).optional(),
  version: z.string().max(255).optional(),
});

/** The value at a zod issue path inside the input, for the error's `cause.value`. */
function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let v: unknown = input;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/**
 * Parses `input` with `schema`. A body that is not a JSON object (or array, for a list schema) is
 * COULD_NOT_PARSE_BODY; any other failure is COULD_NOT_VALIDATE naming the first field at fault,
 * as OpenZiti answers.
 */
export function parseBody<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  // A few bodies are lists (e.g. serviceConfigsAssignList); every other one is an object.
  const wantsArray = schema instanceof z.ZodArray;
  if (input === undefined || input === null || typeof input !== 'object' || Array.isArray(input) !== wantsArray) {
    throw new ZitiError('COULD_NOT_PARSE_BODY', { causeMessage: `the body must be a JSON ${wantsArray ? 'array' : 'object'}` });
  }
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const field = issue.path.map(String).join('.') || '(body)';
  const value = valueAt(input, issue.path);
  const reason = issue.code === 'invalid_type' && value === undefined ? 'is required' : issue.message;
  throw fieldError(field, reason, value);
}

export { z };

/**
 * The parameters of a list request (WIRE.md), read as OpenZiti's controller reads them
 * (routes.GetRequestPaging, then the store's checkLimits): an integer that does not parse is
 * INVALID_PAGINATION; a limit of 0 or below -1 is the default 10, above 500 is 500, and `-1`
 * is OpenZiti's "all of them" (`every`; the limit then is one page's, for the owning service to
 * answer a page at a time); a negative offset is 0 and one above 100000 is 100000. With the ZitiQL `filter` and `sort` texts (parsed by the service owning the
 * list), and the repeatable `roleFilter` with its `roleSemantic`.
 */
export interface Paging {
  limit: number;
  offset: number;
  /** `limit=-1`: every row (unless the filter names a limit). */
  every: boolean;
  filter: string;
  sort: string;
  roleFilter: string[];
  roleSemantic: string;
}

/** The last value of a query parameter given once or repeated. */
function lastValue(raw: unknown): unknown {
  return Array.isArray(raw) ? raw[raw.length - 1] : raw;
}

const INT64_MAX = 2n ** 63n - 1n;

/** A paging parameter as a 64-bit integer parses it (a sign allowed); `fallback` when absent. */
function pagingNumber(name: string, raw: unknown, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const text = lastValue(raw);
  const n = typeof text === 'string' && /^[+-]?\d+$/.test(text) ? BigInt(text) : undefined;
  if (n === undefined || n > INT64_MAX || n < -INT64_MAX - 1n) {
    throw new ZitiError('INVALID_PAGINATION', { cause: { field: name, reason: 'is not an integer', value: text }, causeMessage: `could not parse ${name}, value is not an integer` });
  }
  // Past 2^53 the number is not exact, but the caller clamps it to a page or an offset anyway.
  return Number(n);
}

function text(raw: unknown): string {
  const v = lastValue(raw);
  return typeof v === 'string' ? v : '';
}


/** Reads the list parameters from a query string object. */
export function parsePaging(query: Record<string, unknown>): Paging {
  const asked = pagingNumber('limit', query.limit, DEFAULT_LIMIT);
  // `limit=-1` asks OpenZiti's controller for every entity (the admin console sends it to fill
  // its pickers), as `limit none` in a filter does.
  const every = asked === -1;
  const limit = every ? MAX_LIMIT : asked <= 0 ? DEFAULT_LIMIT : Math.min(asked, MAX_LIMIT);
  const offset = Math.min(Math.max(pagingNumber('offset', query.offset, 0), 0), MAX_OFFSET);
  const roles = query.roleFilter;
  const roleFilter = (Array.isArray(roles) ? roles : roles === undefined ? [] : [roles]).filter((r): r is string => typeof r === 'string');
  return { limit, offset, every, filter: text(query.filter), sort: text(query.sort), roleFilter, roleSemantic: text(query.roleSemantic) };
}

const DURATION_UNITS_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A duration in Go's notation (`1h30m`, `10s`, `250ms`), as OpenZiti's APIs take them, in
 * milliseconds; undefined when the text is not one.
 */
export function parseGoDuration(text: string): number | undefined {
  if (!/^(\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))*$/.test(text)) return text === '0' ? 0 : undefined;
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) total += Number(m[1]) * DURATION_UNITS_MS[m[2]!]!;
  return total;
}

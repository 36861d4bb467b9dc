/**
 * Evaluates a parsed filter over plain in-memory records, with the same semantics the SQL
 * compiler gives (./compile.ts): conditions on missing values are false, strings compare by
 * code point, map values compare as JSON. Used for lists assembled in memory and as the
 * reference the SQL results are tested against.
 */
import type { BoolExpr, Literal, Operand, SortField } from './ast.js';
import { filterError } from './errors.js';
import { resolveField, type FieldMap } from './fields.js';

/** A record as the filter sees it: values by field name (sets as string arrays, maps as objects). */
export type FilterRecord = Readonly<Record<string, unknown>>;

type Scalar = string | number | boolean | Date | null | undefined;
type Op = Extract<BoolExpr, { left: Operand }>;

/** True when the record satisfies the expression; unknown fields throw INVALID_FILTER. */
export function evaluate(expr: BoolExpr, record: FilterRecord, fields: FieldMap, text = ''): boolean {
  const read = (name: string, pos: number): { value: unknown; map: boolean } => {
    const f = resolveField(fields, name);
    if (!f) throw filterError(text, pos, `unknown field ${JSON.stringify(name)}`);
    if (f.key === undefined) return { value: record[f.name], map: false };
    const obj = record[f.name] as Record<string, unknown> | undefined;
    return { value: obj && Object.hasOwn(obj, f.key) ? obj[f.key] : undefined, map: true };
  };
  const visit = (e: BoolExpr): boolean => {
    switch (e.kind) {
      case 'and':
        return e.items.every(visit);
      case 'or':
        return e.items.some(visit);
      case 'not':
        return !visit(e.expr);
      case 'const':
        return e.value;
      case 'symbol':
        return read(e.name, e.pos).value === true;
      case 'isEmpty':
        return setOf(e.set.kind === 'field' ? read(e.set.name, e.set.pos).value : []).length === 0;
      default: {
        const left = e.left;
        if (left.kind === 'count') return test(setOf(left.set.kind === 'field' ? read(left.set.name, left.set.pos).value : []).length, e, false);
        if (left.kind === 'field') {
          const { value, map } = read(left.name, left.pos);
          return test(value as Scalar, e, map);
        }
        const items = setOf(read(left.field, left.pos).value);
        return left.kind === 'anyOf' ? items.some((v) => test(v, e, false)) : items.every((v) => test(v, e, false));
      }
    }
  };
  return visit(expr);
}

function setOf(v: unknown): string[] {
  return Array.isArray(v) ? (v as string[]) : [];
}

function test(value: unknown, e: Op, map: boolean): boolean {
  switch (e.kind) {
    case 'compare': {
      if (e.right.kind === 'null') return (e.op === '=') === (value === null || value === undefined);
      // A missing value fails every comparison; a JSON null inside a map is still a value.
      if (value === undefined || (value === null && !map)) return false;
      if (map && (e.op === '=' || e.op === '!=')) return (e.op === '=') === jsonEqual(value, e.right);
      const c = compareTo(value, e.right);
      if (c === undefined) return false;
      return { '=': c === 0, '!=': c !== 0, '<': c < 0, '<=': c <= 0, '>': c > 0, '>=': c >= 0 }[e.op];
    }
    case 'contains': {
      const needle = e.right.kind === 'string' ? e.right.value : String((e.right as { value: number }).value);
      const hit = typeof value === 'string' && (e.insensitive ? value.toLowerCase().includes(needle.toLowerCase()) : value.includes(needle));
      return e.negated ? !hit : hit;
    }
    case 'in': {
      const hit = value !== null && value !== undefined && e.values.some((l) => (map ? jsonEqual(value, l) : compareTo(value, l) === 0));
      return e.negated ? !hit : hit;
    }
    case 'between': {
      const lo = compareTo(value, e.low);
      const hi = compareTo(value, e.high);
      const hit = lo !== undefined && hi !== undefined && lo >= 0 && hi <= 0;
      return e.negated ? !hit : hit;
    }
  }
}

function jsonEqual(value: unknown, lit: Literal): boolean {
  if (lit.kind === 'null' || lit.kind === 'datetime') return false;
  return typeof value === typeof lit.value && value === lit.value;
}

/** Compares a value with a literal of the same type; undefined when they cannot be compared. */
function compareTo(value: unknown, lit: Literal): number | undefined {
  if (lit.kind === 'string' && typeof value === 'string') return compareCodePoints(value, lit.value);
  if (lit.kind === 'number' && typeof value === 'number') return Math.sign(value - lit.value);
  if (lit.kind === 'bool' && typeof value === 'boolean') return value === lit.value ? 0 : 1;
  if (lit.kind === 'datetime' && value instanceof Date) return Math.sign(value.getTime() - lit.value.getTime());
  return undefined;
}

/** Orders strings by Unicode code point, as Postgres' "C" collation over UTF-8 does. */
export function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return Math.sign(d);
  }
  return Math.sign(x.length - y.length);
}

/** Postgres' order of jsonb values of different types: null < string < number < boolean < array < object. */
function jsonRank(v: unknown): number {
  if (v === null) return 0;
  if (Array.isArray(v)) return 4;
  return { string: 1, number: 2, boolean: 3, object: 5 }[typeof v as string] ?? 6;
}

function compareValues(a: unknown, b: unknown, json: boolean): number {
  if (a === b) return 0;
  if (a === undefined || (a === null && !json)) return 1;
  if (b === undefined || (b === null && !json)) return -1;
  if (json && jsonRank(a) !== jsonRank(b)) return Math.sign(jsonRank(a) - jsonRank(b));
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

/**
 * Sorts records as the SQL plan orders them: by each sort field (missing values last ascending,
 * first descending, and map values in jsonb order, as Postgres does), then by `id`.
 */
export function sortRecords<T extends FilterRecord>(records: T[], sort: SortField[], fields: FieldMap): T[] {
  const value = (r: T, name: string): unknown => {
    const f = resolveField(fields, name);
    if (!f || f.key === undefined) return r[name];
    const obj = r[f.name] as Record<string, unknown> | undefined;
    return obj && Object.hasOwn(obj, f.key) ? obj[f.key] : undefined;
  };
  return [...records].sort((r, s) => {
    for (const f of sort) {
      const d = compareValues(value(r, f.field), value(s, f.field), resolveField(fields, f.field)?.key !== undefined);
      if (d !== 0) return f.direction === 'asc' ? d : -d;
    }
    return compareValues(r.id, s.id, false);
  });
}

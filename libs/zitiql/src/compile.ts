/**
 * Type-checks a filter against a resource's field map and compiles it to a parameterised
 * kysely expression. Every value from the filter travels as a bind parameter; identifiers are
 * only ever looked up in the map, so user input never becomes SQL text.
 *
 * Semantics follow OpenZiti's evaluator (controller/storage/ast): a condition on a missing
 * (NULL) value is false, `not` negates that two-valued result, `anyOf(x) <op> v` holds when
 * some element satisfies the operation, `allOf(x) <op> v` when every element does (so it holds
 * for an empty set), and a set field can only be read through a set function.
 */
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { BoolExpr, CompareOp, Literal, Operand, SetExpr } from './ast.js';
import { filterError } from './errors.js';
import { resolveField, type FieldMap, type FieldType, type ResolvedField } from './fields.js';

type Cond = RawBuilder<SqlBool>;
type ScalarType = Exclude<FieldType, 'set' | 'map'>;

/** A value the predicate compilers read: a typed SQL expression. */
interface Value {
  expr: Expression<unknown>;
  type: ScalarType;
  nullable: boolean;
}

const ELEMENT = sql.ref('zq_e.v');
const SQL_OPS: Record<CompareOp, RawBuilder<unknown>> = {
  '=': sql.raw('='), '!=': sql.raw('<>'), '<': sql.raw('<'), '<=': sql.raw('<='), '>': sql.raw('>'), '>=': sql.raw('>='),
};

/** Compiles a boolean expression of a filter; `text` is the filter, for error positions. */
export function compileWhere(expr: BoolExpr, fields: FieldMap, text: string): Cond {
  return new Compiler(fields, text).bool(expr);
}

class Compiler {
  constructor(
    private readonly fields: FieldMap,
    private readonly text: string,
  ) {}

  private fail(pos: number, reason: string): never {
    throw filterError(this.text, pos, reason);
  }

  private resolve(name: string, pos: number): ResolvedField {
    const found = resolveField(this.fields, name);
    if (!found) this.fail(pos, `unknown field ${JSON.stringify(name)}; filterable fields are ${Object.keys(this.fields).join(', ')}`);
    return found;
  }

  bool(e: BoolExpr): Cond {
    switch (e.kind) {
      case 'and':
      case 'or':
        return sql<SqlBool>`(${sql.join(e.items.map((i) => this.bool(i)), sql.raw(` ${e.kind} `))})`;
      case 'not':
        return sql<SqlBool>`(not ${this.bool(e.expr)})`;
      case 'const':
        return sql<SqlBool>`${sql.raw(e.value ? 'true' : 'false')}`;
      case 'symbol':
        return this.symbol(e.name, e.pos);
      case 'isEmpty':
        return sql<SqlBool>`(${this.cardinality(e.set)} = 0)`;
      default:
        return this.operation(e);
    }
  }

  private symbol(name: string, pos: number): Cond {
    const f = this.resolve(name, pos);
    if (f.key !== undefined) return sql<SqlBool>`coalesce(${mapValue(f)} = 'true'::jsonb, false)`;
    if (f.def.type !== 'bool') this.fail(pos, `field ${JSON.stringify(name)} is a ${f.def.type}, not a bool; compare it with a value`);
    return twoValued(sql<SqlBool>`${f.def.expr} = true`, f.def.nullable);
  }

  private cardinality(set: SetExpr): RawBuilder<number> {
    if (set.kind === 'subquery') this.fail(set.pos, `sub-queries over ${JSON.stringify(set.entity)} are not supported on this list`);
    const f = this.resolve(set.name, set.pos);
    if (f.def.type !== 'set') this.fail(set.pos, `field ${JSON.stringify(set.name)} is not a set`);
    return sql<number>`coalesce(cardinality(${f.def.expr}), 0)`;
  }

  private operation(e: Extract<BoolExpr, { left: Operand }>): Cond {
    const left = e.left;
    if (left.kind === 'count') {
      return this.predicate({ expr: this.cardinality(left.set), type: 'number', nullable: false }, e);
    }
    const name = left.kind === 'field' ? left.name : left.field;
    const f = this.resolve(name, left.pos);
    if (left.kind === 'anyOf' || left.kind === 'allOf') {
      if (f.def.type !== 'set') this.fail(left.pos, `field ${JSON.stringify(name)} is not a set; ${left.kind}() reads set fields`);
      const element = this.predicate({ expr: ELEMENT, type: 'string', nullable: false }, e);
      return left.kind === 'anyOf' ? anyOf(f.def.expr, element, e) : allOf(f.def.expr, element);
    }
    if (f.def.type === 'set') this.fail(left.pos, `field ${JSON.stringify(name)} is a set; read it with anyOf(), allOf(), count() or isEmpty()`);
    if (f.def.type === 'map') {
      if (f.key === undefined) this.fail(left.pos, `field ${JSON.stringify(name)} is a map; address a key as ${name}.<key>`);
      return new MapPredicates(this, f).compile(e);
    }
    return this.predicate({ expr: f.def.expr, type: f.def.type, nullable: f.def.nullable }, e);
  }

  /** A comparison, contains, in or between over a typed scalar. */
  predicate(v: Value, e: Extract<BoolExpr, { left: Operand }>): Cond {
    switch (e.kind) {
      case 'compare':
        return this.compare(v, e.op, e.right, e.pos);
      case 'contains': {
        if (v.type !== 'string') this.fail(e.pos, `"contains" needs a string field; this one is a ${v.type}`);
        const needle = e.right.kind === 'string' ? e.right.value : String((e.right as { value: unknown }).value);
        const hay = e.insensitive ? sql`lower(${v.expr})` : v.expr;
        const probe = e.insensitive ? sql`lower(${needle})` : sql`${needle}`;
        return negate(twoValued(sql<SqlBool>`strpos(${hay}, ${probe}) > 0`, v.nullable), e.negated);
      }
      case 'in': {
        for (const lit of e.values) this.checkType(v, lit);
        const list = sql.join(e.values.map((l) => param(l)));
        return negate(twoValued(sql<SqlBool>`${v.expr} in (${list})`, v.nullable), e.negated);
      }
      case 'between': {
        this.checkType(v, e.low);
        this.checkType(v, e.high);
        return negate(twoValued(sql<SqlBool>`${v.expr} between ${param(e.low)} and ${param(e.high)}`, v.nullable), e.negated);
      }
    }
  }

  private compare(v: Value, op: CompareOp, right: Literal, pos: number): Cond {
    if (right.kind === 'null') {
      if (op !== '=' && op !== '!=') this.fail(right.pos, `"${op}" cannot compare with null`);
      return sql<SqlBool>`${v.expr} ${sql.raw(op === '=' ? 'is null' : 'is not null')}`;
    }
    if (right.kind === 'bool' && op !== '=' && op !== '!=') this.fail(right.pos, `"${op}" cannot compare with a bool`);
    this.checkType(v, right);
    const left = op === '=' || op === '!=' ? v.expr : ordered(v);
    return twoValued(sql<SqlBool>`${left} ${SQL_OPS[op]} ${param(right)}`, v.nullable);
  }

  checkType(v: Value, lit: Literal): void {
    if (lit.kind === 'null') return;
    if (lit.kind !== v.type) this.fail(lit.pos, `expected a ${v.type} value, found a ${lit.kind}`);
  }

  error(pos: number, reason: string): never {
    return this.fail(pos, reason);
  }
}

/**
 * Predicates on one key of a jsonb map (`tags.env`), whose values may be of any JSON type:
 * equality compares JSON values, ordering compares only values of the literal's type.
 */
class MapPredicates {
  private readonly json: RawBuilder<unknown>;
  private readonly text: RawBuilder<unknown>;

  constructor(
    private readonly c: Compiler,
    private readonly f: ResolvedField,
  ) {
    this.json = mapValue(f);
    this.text = sql`(${f.def.expr} ->> ${f.key})`;
  }

  private typed(kind: 'number' | 'string'): Value {
    const cast = kind === 'number' ? sql`(${this.text})::numeric` : this.text;
    return { expr: sql`(case when jsonb_typeof(${this.json}) = ${kind} then ${cast} end)`, type: kind, nullable: true };
  }

  compile(e: Extract<BoolExpr, { left: Operand }>): Cond {
    switch (e.kind) {
      case 'compare': {
        const r = e.right;
        if (r.kind === 'null') {
          if (e.op !== '=' && e.op !== '!=') return this.c.error(r.pos, `"${e.op}" cannot compare with null`);
          const isNull = sql<SqlBool>`(${this.json} is null or ${this.json} = 'null'::jsonb)`;
          return negate(isNull, e.op === '!=');
        }
        if (r.kind === 'datetime') return this.c.error(r.pos, 'map values are JSON and cannot be compared with a datetime');
        if (e.op === '=' || e.op === '!=') {
          return twoValued(sql<SqlBool>`${this.json} ${SQL_OPS[e.op]} ${jsonParam(r)}`, true);
        }
        if (r.kind === 'bool') return this.c.error(r.pos, `"${e.op}" cannot compare with a bool`);
        return this.c.predicate(this.typed(r.kind), e);
      }
      case 'contains':
        return this.c.predicate(this.typed('string'), e);
      case 'in': {
        const list = sql.join(e.values.map((l) => jsonParam(l)));
        if (e.values[0]?.kind === 'datetime') return this.c.error(e.values[0].pos, 'map values are JSON and cannot be compared with a datetime');
        return negate(twoValued(sql<SqlBool>`${this.json} in (${list})`, true), e.negated);
      }
      case 'between':
        if (e.low.kind !== 'number') return this.c.error(e.low.pos, 'map values are JSON and cannot be compared with a datetime');
        return this.c.predicate(this.typed('number'), e);
    }
  }
}

function mapValue(f: ResolvedField): RawBuilder<unknown> {
  return sql`(${f.def.expr} -> ${f.key})`;
}

/** Strings order by code point (as Go's string comparison in OpenZiti), not by locale. */
function ordered(v: Value): Expression<unknown> {
  return v.type === 'string' ? sql`(${v.expr} collate "C")` : v.expr;
}

function twoValued(cond: Cond, nullable: boolean): Cond {
  return nullable ? sql<SqlBool>`coalesce(${cond}, false)` : sql<SqlBool>`(${cond})`;
}

function negate(cond: Cond, negated: boolean): Cond {
  return negated ? sql<SqlBool>`(not ${cond})` : cond;
}

/** A literal as a typed bind parameter. */
function param(lit: Literal): RawBuilder<unknown> {
  switch (lit.kind) {
    case 'string':
      return sql`${lit.value}::text`;
    case 'number':
      return sql`${lit.value}::numeric`;
    case 'bool':
      return sql`${lit.value}::boolean`;
    case 'datetime':
      return sql`${lit.value.toISOString()}::timestamptz`;
    case 'null':
      return sql`null`;
  }
}

function jsonParam(lit: Literal): RawBuilder<unknown> {
  const value = lit.kind === 'null' ? null : lit.kind === 'datetime' ? lit.value.toISOString() : lit.value;
  return sql`${JSON.stringify(value)}::jsonb`;
}

function anyOf(column: Expression<unknown>, element: Cond, e: BoolExpr): Cond {
  // `anyOf(x) = v` and `anyOf(x) in [...]` use the array operators a GIN index serves.
  if (e.kind === 'compare' && e.op === '=' && e.right.kind === 'string') {
    return sql<SqlBool>`(${column} @> array[${e.right.value}::text])`;
  }
  if (e.kind === 'in' && !e.negated && e.values.every((v) => v.kind === 'string')) {
    return sql<SqlBool>`(${column} && array[${sql.join(e.values.map((v) => sql`${(v as { value: string }).value}::text`))}])`;
  }
  return sql<SqlBool>`exists (select 1 from unnest(${column}) as zq_e(v) where ${element})`;
}

function allOf(column: Expression<unknown>, element: Cond): Cond {
  return sql<SqlBool>`not exists (select 1 from unnest(${column}) as zq_e(v) where not coalesce(${element}, false))`;
}

/**
 * The typed syntax tree of a ZitiQL filter. Positions are 0-based character offsets into the
 * filter text, so errors can point at the place they concern.
 */

/** A literal value as written in the filter. */
export type Literal =
  | { kind: 'string'; value: string; pos: number }
  | { kind: 'number'; value: number; pos: number }
  | { kind: 'bool'; value: boolean; pos: number }
  | { kind: 'null'; pos: number }
  | { kind: 'datetime'; value: Date; pos: number };

/** The set a set function reads: a field, or a sub-query over a related entity. */
export type SetExpr =
  | { kind: 'field'; name: string; pos: number }
  | { kind: 'subquery'; entity: string; query: Query; pos: number };

/** The left-hand side of an operation. */
export type Operand =
  | { kind: 'field'; name: string; pos: number }
  | { kind: 'anyOf' | 'allOf'; field: string; pos: number }
  | { kind: 'count'; set: SetExpr; pos: number };

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** A boolean expression. */
export type BoolExpr =
  | { kind: 'and' | 'or'; items: BoolExpr[] }
  | { kind: 'not'; expr: BoolExpr; pos: number }
  | { kind: 'const'; value: boolean; pos: number }
  | { kind: 'symbol'; name: string; pos: number }
  | { kind: 'isEmpty'; set: SetExpr; pos: number }
  | { kind: 'compare'; op: CompareOp; left: Operand; right: Literal; pos: number }
  | { kind: 'contains'; negated: boolean; insensitive: boolean; left: Operand; right: Literal; pos: number }
  | { kind: 'in'; negated: boolean; left: Operand; values: Literal[]; pos: number }
  | { kind: 'between'; negated: boolean; left: Operand; low: Literal; high: Literal; pos: number };

/** One `sort by` entry. */
export interface SortField {
  field: string;
  direction: 'asc' | 'desc';
  pos: number;
}

/** A whole filter: `[boolExpr] [sort by ...] [skip N] [limit N|none]`. */
export interface Query {
  where?: BoolExpr;
  sort: SortField[];
  skip?: number;
  /** A row count, or `'none'` for `limit none`. */
  limit?: number | 'none';
}

/**
 * A recursive-descent parser for ZitiQL (grammar: ZitiQl.g4 in openziti/ziti,
 * controller/storage/zitiql), producing the tree of ./ast.ts.
 *
 * Precedence follows the ANTLR rule order of `boolExpr`: `and` binds tighter than `or`, and
 * `not` (the last alternative) takes the whole boolean expression after it, so
 * `not a = 1 and b = 2` means `not (a = 1 and b = 2)`, as in OpenZiti.
 */
import type { BoolExpr, CompareOp, Literal, Operand, Query, SetExpr, SortField } from './ast.js';
import { filterError } from './errors.js';
import { tokenize, type Token } from './lexer.js';

/** Longest filter accepted; longer texts are refused before parsing. */
export const MAX_FILTER_LENGTH = 8192;
/** Deepest nesting of parentheses, `not` and sub-queries accepted. */
export const MAX_DEPTH = 64;

const KEYWORDS = new Set([
  'and', 'or', 'not', 'in', 'contains', 'icontains', 'between', 'true', 'false', 'null', 'anyof', 'allof',
  'count', 'isempty', 'sort', 'by', 'asc', 'desc', 'skip', 'limit', 'none', 'from', 'where',
]);

/** Parses a filter. An empty or blank text is a query without conditions. */
export function parseFilter(text: string): Query {
  if (text.length > MAX_FILTER_LENGTH) throw filterError(text, MAX_FILTER_LENGTH, `filter longer than ${MAX_FILTER_LENGTH} characters`);
  const p = new Parser(text, tokenize(text));
  const query = p.query();
  p.expectEnd();
  return query;
}

/** Parses the text of a `sort` parameter: `field [asc|desc], ...`. */
export function parseSort(text: string): SortField[] {
  const p = new Parser(text, tokenize(text));
  const fields = p.sortFields();
  p.expectEnd();
  return fields;
}

class Parser {
  private i = 0;
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly tokens: Token[],
  ) {}

  private get tok(): Token {
    return this.tokens[this.i]!;
  }

  private fail(reason: string, tok: Token = this.tok): never {
    throw filterError(this.text, tok.pos, `${reason}, found ${describe(tok)}`);
  }

  private isKeyword(word: string, tok: Token = this.tok): boolean {
    return tok.kind === 'ident' && !tok.quoted && tok.text.toLowerCase() === word;
  }

  private acceptKeyword(word: string): boolean {
    if (!this.isKeyword(word)) return false;
    this.i++;
    return true;
  }

  private expectKeyword(word: string): void {
    if (!this.acceptKeyword(word)) this.fail(`expected "${word}"`);
  }

  private expect(kind: Token['kind'], what: string): Token {
    const tok = this.tok;
    if (tok.kind !== kind) this.fail(`expected ${what}`);
    this.i++;
    return tok;
  }

  private nest<T>(fn: () => T): T {
    if (++this.depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH}`);
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }

  expectEnd(): void {
    if (this.tok.kind !== 'eof') this.fail('expected "and", "or", "sort by", "skip", "limit" or the end of the filter');
  }

  query(): Query {
    const query: Query = { sort: [] };
    if (!this.atClause() && this.tok.kind !== 'eof' && this.tok.kind !== ')') query.where = this.or();
    if (this.acceptKeyword('sort')) {
      this.expectKeyword('by');
      query.sort = this.sortFields();
    }
    if (this.acceptKeyword('skip')) query.skip = this.count('skip');
    if (this.acceptKeyword('limit')) query.limit = this.acceptKeyword('none') ? 'none' : this.count('limit');
    return query;
  }

  private atClause(): boolean {
    return this.isKeyword('sort') || this.isKeyword('skip') || this.isKeyword('limit');
  }

  private count(clause: string): number {
    const tok = this.tok;
    if (tok.kind !== 'number' || !Number.isSafeInteger(tok.value) || tok.value < 0 || /[.eE]/.test(tok.text)) {
      this.fail(`expected a non-negative integer after "${clause}"`);
    }
    this.i++;
    return tok.value;
  }

  sortFields(): SortField[] {
    const fields: SortField[] = [];
    do {
      const tok = this.identifier('a field to sort by');
      let direction: 'asc' | 'desc' = 'asc';
      if (this.acceptKeyword('desc')) direction = 'desc';
      else this.acceptKeyword('asc');
      fields.push({ field: tok.text, direction, pos: tok.pos });
    } while (this.tok.kind === ',' && ++this.i);
    return fields;
  }

  private identifier(what: string): Extract<Token, { kind: 'ident' }> {
    const tok = this.tok;
    if (tok.kind !== 'ident' || (!tok.quoted && KEYWORDS.has(tok.text.toLowerCase()))) this.fail(`expected ${what}`);
    this.i++;
    return tok;
  }

  private or(): BoolExpr {
    const items = [this.and()];
    while (this.acceptKeyword('or')) items.push(this.and());
    return items.length === 1 ? items[0]! : { kind: 'or', items };
  }

  private and(): BoolExpr {
    const items = [this.unary()];
    while (this.acceptKeyword('and')) items.push(this.unary());
    return items.length === 1 ? items[0]! : { kind: 'and', items };
  }

  private unary(): BoolExpr {
    const tok = this.tok;
    if (this.acceptKeyword('not')) return this.nest(() => ({ kind: 'not', expr: this.or(), pos: tok.pos }));
    return this.primary();
  }

  private primary(): BoolExpr {
    const tok = this.tok;
    if (tok.kind === '(') {
      this.i++;
      const inner = this.nest(() => this.or());
      this.expect(')', '")"');
      return inner;
    }
    if (this.acceptKeyword('true')) return { kind: 'const', value: true, pos: tok.pos };
    if (this.acceptKeyword('false')) return { kind: 'const', value: false, pos: tok.pos };
    if (this.acceptKeyword('isempty')) return { kind: 'isEmpty', set: this.setArgument(), pos: tok.pos };
    if (tok.kind !== 'ident') this.fail('expected a condition');
    const left = this.operand();
    if (left.kind === 'field' && this.atConditionEnd()) return { kind: 'symbol', name: left.name, pos: left.pos };
    return this.operation(left);
  }

  private atConditionEnd(): boolean {
    const t = this.tok;
    return t.kind === 'eof' || t.kind === ')' || this.isKeyword('and') || this.isKeyword('or') || this.atClause();
  }

  private operand(): Operand {
    const tok = this.tok;
    for (const fn of ['anyOf', 'allOf'] as const) {
      if (this.isKeyword(fn.toLowerCase()) && this.tokens[this.i + 1]?.kind === '(') {
        this.i += 2;
        const field = this.identifier('a field name');
        this.expect(')', '")"');
        return { kind: fn, field: field.text, pos: tok.pos };
      }
    }
    if (this.acceptKeyword('count')) return { kind: 'count', set: this.setArgument(), pos: tok.pos };
    const field = this.identifier('a field name, anyOf(), allOf() or count()');
    return { kind: 'field', name: field.text, pos: field.pos };
  }

  /** `( field )` or `( from entity where query )`. */
  private setArgument(): SetExpr {
    this.expect('(', '"("');
    const tok = this.tok;
    let set: SetExpr;
    if (this.acceptKeyword('from')) {
      const entity = this.identifier('an entity name after "from"');
      this.expectKeyword('where');
      const query = this.nest(() => this.query());
      set = { kind: 'subquery', entity: entity.text, query, pos: tok.pos };
    } else {
      const field = this.identifier('a field name or "from"');
      set = { kind: 'field', name: field.text, pos: field.pos };
    }
    this.expect(')', '")"');
    return set;
  }

  private operation(left: Operand): BoolExpr {
    const tok = this.tok;
    if (tok.kind === 'op') {
      this.i++;
      return { kind: 'compare', op: tok.text as CompareOp, left, right: this.literal(`a value after "${tok.text}"`), pos: tok.pos };
    }
    const negated = this.acceptKeyword('not');
    const opTok = this.tok;
    if (this.acceptKeyword('contains') || this.acceptKeyword('icontains')) {
      const insensitive = this.isKeyword('icontains', opTok);
      const right = this.literal('a string or number after "contains"');
      if (right.kind !== 'string' && right.kind !== 'number') this.fail('expected a string or number after "contains"', this.tokens[this.i - 1]);
      return { kind: 'contains', negated, insensitive, left, right, pos: opTok.pos };
    }
    if (this.acceptKeyword('in')) return { kind: 'in', negated, left, values: this.array(), pos: opTok.pos };
    if (this.acceptKeyword('between')) {
      const low = this.literal('a number or datetime after "between"');
      this.expectKeyword('and');
      const high = this.literal('a number or datetime after "and"');
      if (!((low.kind === 'number' && high.kind === 'number') || (low.kind === 'datetime' && high.kind === 'datetime'))) {
        this.fail('expected two numbers or two datetimes for "between"', opTok);
      }
      return { kind: 'between', negated, left, low, high, pos: opTok.pos };
    }
    return this.fail(negated ? 'expected "contains", "icontains", "in" or "between" after "not"' : 'expected an operator (=, !=, <, <=, >, >=, contains, icontains, in, between)', opTok);
  }

  /** `[v, ...]`: one or more values of one kind (string, number or datetime), as the grammar says. */
  private array(): Literal[] {
    this.expect('[', '"["');
    const values: Literal[] = [];
    do {
      const v = this.literal('a value in the list');
      if (v.kind !== 'string' && v.kind !== 'number' && v.kind !== 'datetime') this.fail('expected a string, number or datetime in the list', this.tokens[this.i - 1]);
      if (values.length > 0 && values[0]!.kind !== v.kind) this.fail(`expected a ${values[0]!.kind} like the first value of the list`, this.tokens[this.i - 1]);
      values.push(v);
    } while (this.tok.kind === ',' && ++this.i);
    this.expect(']', '"," or "]"');
    return values;
  }

  private literal(what: string): Literal {
    const tok = this.tok;
    switch (tok.kind) {
      case 'string':
        this.i++;
        return { kind: 'string', value: tok.value, pos: tok.pos };
      case 'number':
        this.i++;
        return { kind: 'number', value: tok.value, pos: tok.pos };
      case 'datetime':
        this.i++;
        return { kind: 'datetime', value: tok.value, pos: tok.pos };
      default:
        if (this.acceptKeyword('true')) return { kind: 'bool', value: true, pos: tok.pos };
        if (this.acceptKeyword('false')) return { kind: 'bool', value: false, pos: tok.pos };
        if (this.acceptKeyword('null')) return { kind: 'null', pos: tok.pos };
        return this.fail(`expected ${what}`);
    }
  }
}

function describe(tok: Token): string {
  switch (tok.kind) {
    case 'eof':
      return 'the end of the filter';
    case 'ident':
      return JSON.stringify(tok.text);
    case 'string':
      return `the string ${JSON.stringify(tok.value)}`;
    case 'number':
      return `the number ${tok.text}`;
    case 'datetime':
      return 'a datetime';
    case 'op':
      return `"${tok.text}"`;
    default:
      return `"${tok.kind}"`;
  }
}

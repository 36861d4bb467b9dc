/**
 * A renderer for the subset of Go text/template (plus the Sprig and Helm functions listed in
 * FUNCTIONS) that helm/edge-controller uses, so the chart can be rendered and checked without a
 * helm binary. It follows Go's semantics where the chart relies on them: whitespace trimming,
 * truthiness, map ranges in key order, variable scope per block, `$` per template execution,
 * float64 numbers from YAML printed as Go's %v prints them. It is strict like
 * `helm lint --strict`: a missing map key, an unknown function or a printf verb that does not
 * fit its argument is an error rather than an empty string, so a typo fails the test.
 */
import { stringify } from 'yaml';

type Value = unknown;
type Scope = Map<string, Value>[];

interface Text { kind: 'text'; text: string }
interface Output { kind: 'output'; pipe: Pipeline }
interface If { kind: 'if'; branches: Array<{ cond: Pipeline; body: Node[] }>; otherwise: Node[] }
interface With { kind: 'with'; pipe: Pipeline; body: Node[]; otherwise: Node[] }
interface Range { kind: 'range'; keyVar?: string; valueVar?: string; pipe: Pipeline; body: Node[]; otherwise: Node[] }
interface Call { kind: 'template'; name: string; pipe?: Pipeline }
type Node = Text | Output | If | With | Range | Call;

/** A pipeline, optionally declaring (`:=`) or assigning (`=`) a variable. */
interface Pipeline { decl?: { name: string; op: ':=' | '=' }; commands: Operand[][] }
type Operand =
  | { kind: 'literal'; value: Value }
  | { kind: 'field'; base: 'dot' | string; path: string[] }
  | { kind: 'ident'; name: string }
  | { kind: 'sub'; pipe: Pipeline };

/** Thrown for template errors; the message names the template and what went wrong. */
export class TemplateError extends Error {}

// ---- lexing: text and actions, with {{- -}} trimming and comments removed

interface RawAction { text: string; template: string }

function splitActions(src: string, template: string): Array<string | RawAction> {
  const out: Array<string | RawAction> = [];
  let pos = 0;
  let trimNext = false;
  while (pos < src.length) {
    const open = src.indexOf('{{', pos);
    let text = src.slice(pos, open < 0 ? src.length : open);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (open < 0) {
      out.push(text);
      break;
    }
    const trimLeft = /^\{\{-\s/.test(src.slice(open, open + 4));
    if (trimLeft) text = text.replace(/\s+$/, '');
    out.push(text);
    const close = findClose(src, open + 2, template);
    const inner = src.slice(open + (trimLeft ? 3 : 2), close);
    trimNext = /\s-$/.test(inner);
    const body = (trimNext ? inner.slice(0, -1) : inner).trim();
    if (!(body.startsWith('/*') && body.endsWith('*/'))) out.push({ text: body, template });
    pos = close + 2;
  }
  return out;
}

function findClose(src: string, from: number, template: string): number {
  let i = from;
  if (src.slice(from).replace(/^-?\s*/, '').startsWith('/*')) {
    const end = src.indexOf('*/', from);
    if (end < 0) throw new TemplateError(`${template}: unclosed comment`);
    i = end + 2;
  }
  for (; i < src.length; i++) {
    const c = src[i];
    if (c === '"') {
      for (i++; i < src.length && src[i] !== '"'; i++) if (src[i] === '\\') i++;
    } else if (c === '`') {
      i = src.indexOf('`', i + 1);
    } else if (c === '}' && src[i + 1] === '}') {
      return i;
    }
  }
  throw new TemplateError(`${template}: unclosed action`);
}

// ---- tokens inside an action

type Token =
  | { t: 'str' | 'num' | 'ident' | 'var' | 'field' | 'punct'; v: string };

function tokenize(action: string, template: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s*(?:("(?:[^"\\]|\\.)*")|(`[^`]*`)|(-?\d+(?:\.\d+)?)|(\$[A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)|(\.(?:[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)?)|([A-Za-z_][A-Za-z0-9_]*)|(:=|[=|(),]))/y;
  let m: RegExpExecArray | null;
  let last = 0;
  while ((m = re.exec(action))) {
    last = re.lastIndex;
    if (m[1]) tokens.push({ t: 'str', v: JSON.parse(m[1]) as string });
    else if (m[2]) tokens.push({ t: 'str', v: m[2].slice(1, -1) });
    else if (m[3]) tokens.push({ t: 'num', v: m[3] });
    else if (m[4]) tokens.push({ t: 'var', v: m[4] });
    else if (m[5]) tokens.push({ t: 'field', v: m[5] });
    else if (m[6]) tokens.push({ t: 'ident', v: m[6] });
    else if (m[7]) tokens.push({ t: 'punct', v: m[7] });
    if (re.lastIndex === action.length) break;
  }
  if (action.slice(last).trim() !== '') throw new TemplateError(`${template}: cannot parse ${JSON.stringify(action)}`);
  return tokens;
}

function parsePipeline(tokens: Token[], template: string): Pipeline {
  let i = 0;
  const pipe: Pipeline = { commands: [] };
  if (tokens[0]?.t === 'var' && tokens[1]?.t === 'punct' && (tokens[1].v === ':=' || tokens[1].v === '=')) {
    pipe.decl = { name: tokens[0].v, op: tokens[1].v };
    i = 2;
  }
  const operand = (): Operand => {
    const tok = tokens[i++];
    if (!tok) throw new TemplateError(`${template}: unexpected end of action`);
    switch (tok.t) {
      case 'str': return { kind: 'literal', value: tok.v };
      case 'num': return { kind: 'literal', value: Number(tok.v) };
      case 'var': {
        const [base, ...path] = tok.v.split('.');
        return { kind: 'field', base: base!, path };
      }
      case 'field': return { kind: 'field', base: 'dot', path: tok.v === '.' ? [] : tok.v.slice(1).split('.') };
      case 'ident':
        if (tok.v === 'true' || tok.v === 'false') return { kind: 'literal', value: tok.v === 'true' };
        if (tok.v === 'nil') return { kind: 'literal', value: null };
        return { kind: 'ident', name: tok.v };
      case 'punct':
        if (tok.v === '(') {
          const start = i;
          let depth = 1;
          while (i < tokens.length && depth > 0) {
            const p = tokens[i++]!;
            if (p.t === 'punct' && p.v === '(') depth++;
            if (p.t === 'punct' && p.v === ')') depth--;
          }
          if (depth !== 0) throw new TemplateError(`${template}: unbalanced parentheses`);
          return { kind: 'sub', pipe: parsePipeline(tokens.slice(start, i - 1), template) };
        }
    }
    throw new TemplateError(`${template}: unexpected ${JSON.stringify(tok.v)}`);
  };
  let command: Operand[] = [];
  while (i < tokens.length) {
    const tok = tokens[i]!;
    if (tok.t === 'punct' && tok.v === '|') {
      i++;
      pipe.commands.push(command);
      command = [];
      continue;
    }
    command.push(operand());
  }
  pipe.commands.push(command);
  if (pipe.commands.some((c) => c.length === 0)) throw new TemplateError(`${template}: empty command in pipeline`);
  return pipe;
}

// ---- parsing into a tree

/** Parses one file's text; `define` blocks go into `defines`. */
export function parseTemplate(src: string, template: string, defines: Map<string, Node[]>): Node[] {
  const items = splitActions(src, template);
  let i = 0;
  const parseList = (stops: string[]): { nodes: Node[]; stop?: string; rest?: Token[] } => {
    const nodes: Node[] = [];
    while (i < items.length) {
      const item = items[i++]!;
      if (typeof item === 'string') {
        if (item) nodes.push({ kind: 'text', text: item });
        continue;
      }
      const tokens = tokenize(item.text, template);
      const head = tokens[0]?.t === 'ident' ? tokens[0].v : undefined;
      if (head === 'end' || head === 'else') {
        if (!stops.includes(head)) throw new TemplateError(`${template}: unexpected {{${head}}}`);
        return { nodes, stop: head, rest: tokens.slice(1) };
      }
      if (head === 'if') nodes.push(parseIf(tokens.slice(1)));
      else if (head === 'with') {
        const pipe = parsePipeline(tokens.slice(1), template);
        const { body, otherwise } = parseBody();
        nodes.push({ kind: 'with', pipe, body, otherwise });
      } else if (head === 'range') nodes.push(parseRange(tokens.slice(1)));
      else if (head === 'define') {
        const name = tokens[1];
        if (name?.t !== 'str') throw new TemplateError(`${template}: define needs a name`);
        const { nodes: body, stop } = parseList(['end']);
        if (stop !== 'end') throw new TemplateError(`${template}: unclosed define ${name.v}`);
        defines.set(name.v, body);
      } else if (head === 'template') {
        const name = tokens[1];
        if (name?.t !== 'str') throw new TemplateError(`${template}: template needs a name`);
        nodes.push({ kind: 'template', name: name.v, pipe: tokens.length > 2 ? parsePipeline(tokens.slice(2), template) : undefined });
      } else if (head === 'block') {
        throw new TemplateError(`${template}: block is outside the supported subset`);
      } else nodes.push({ kind: 'output', pipe: parsePipeline(tokens, template) });
    }
    if (stops.length) throw new TemplateError(`${template}: missing {{end}}`);
    return { nodes };
  };
  const parseBody = (): { body: Node[]; otherwise: Node[] } => {
    const first = parseList(['end', 'else']);
    if (first.stop === 'end') return { body: first.nodes, otherwise: [] };
    if (first.rest!.length) throw new TemplateError(`${template}: only "else if" chains are supported`);
    const second = parseList(['end']);
    return { body: first.nodes, otherwise: second.nodes };
  };
  const parseIf = (condTokens: Token[]): If => {
    const node: If = { kind: 'if', branches: [], otherwise: [] };
    let cond = parsePipeline(condTokens, template);
    for (;;) {
      const part = parseList(['end', 'else']);
      node.branches.push({ cond, body: part.nodes });
      if (part.stop === 'end') return node;
      const rest = part.rest!;
      if (rest[0]?.t === 'ident' && rest[0].v === 'if') {
        cond = parsePipeline(rest.slice(1), template);
        continue;
      }
      node.otherwise = parseList(['end']).nodes;
      return node;
    }
  };
  const parseRange = (tokens: Token[]): Range => {
    let keyVar: string | undefined;
    let valueVar: string | undefined;
    const declAt = tokens.findIndex((t) => t.t === 'punct' && t.v === ':=');
    if (declAt >= 0) {
      const vars = tokens.slice(0, declAt).filter((t) => t.t === 'var').map((t) => t.v);
      if (vars.length === 2) [keyVar, valueVar] = vars;
      else valueVar = vars[0];
      tokens = tokens.slice(declAt + 1);
    }
    const pipe = parsePipeline(tokens, template);
    const { body, otherwise } = parseBody();
    return { kind: 'range', keyVar, valueVar, pipe, body, otherwise };
  };
  const { nodes } = parseList([]);
  return nodes;
}

// ---- values with Go's semantics

function isMap(v: Value): v is Record<string, Value> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Go template truthiness: false, 0, nil and empty strings, slices and maps are false. */
export function truthy(v: Value): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return true;
}

/** A number as Go prints a float64 with %v (YAML numbers reach Helm templates as float64). */
export function goNumber(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  if (n === 0) return '0';
  const exp = Math.floor(Math.log10(Math.abs(n)));
  // Go's %v is %g with the shortest precision, which switches to an exponent from 1e+06 on.
  if (exp < -4 || exp >= 6) {
    const [mant, e] = n.toExponential().split('e');
    const sign = e!.startsWith('-') ? '-' : '+';
    const digits = e!.replace(/^[+-]/, '').padStart(2, '0');
    return `${mant}e${sign}${digits}`;
  }
  return String(n);
}

/** How a value prints in output and through %v / %s. */
function show(v: Value, where: string): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  throw new TemplateError(`${where}: refusing to print a ${Array.isArray(v) ? 'list' : 'map'} (use toYaml)`);
}

function goPrintf(format: string, args: Value[], where: string): string {
  let n = 0;
  return format.replace(/%([svdq%])/g, (_m, verb: string) => {
    if (verb === '%') return '%';
    if (n >= args.length) throw new TemplateError(`${where}: printf ${JSON.stringify(format)} is missing an argument`);
    const a = args[n++];
    if (verb === 'v') return show(a, where);
    if (verb === 's' || verb === 'q') {
      if (typeof a !== 'string') throw new TemplateError(`${where}: printf %${verb} of ${typeof a} (Go prints %!${verb}(...))`);
      return verb === 'q' ? JSON.stringify(a) : a;
    }
    // %d of a float64 is %!d(float64=…) in Go: YAML numbers are float64 in Helm, so use %v.
    throw new TemplateError(`${where}: printf %d needs an int, and values from YAML are float64 in Helm; use %v`);
  });
}

function toYaml(v: Value): string {
  if (v === null || v === undefined) return 'null';
  return stringify(v, { sortMapEntries: true, lineWidth: 0 }).replace(/\n$/, '');
}

function indentText(n: number, s: string): string {
  const pad = ' '.repeat(n);
  return pad + s.replace(/\n/g, `\n${pad}`);
}

type Fn = (args: Value[], where: string) => Value;

function eqArgs(args: Value[], where: string): boolean {
  if (args.length < 2) throw new TemplateError(`${where}: eq needs two arguments`);
  const [first, ...rest] = args;
  for (const a of [first, ...rest]) if (typeof a === 'object' && a !== null) throw new TemplateError(`${where}: eq of a non-basic value`);
  return rest.some((r) => r === first);
}

const arity = (name: string, n: number, args: Value[], where: string) => {
  if (args.length !== n) throw new TemplateError(`${where}: ${name} takes ${n} argument(s), got ${args.length}`);
};

/** The functions the chart may use; anything else is an error. `include` is added per render. */
export const FUNCTIONS: Record<string, Fn> = {
  default: (a, w) => (arity('default', 2, a, w), truthy(a[1]) ? a[1] : a[0]),
  // Sprig's quote skips nil arguments.
  quote: (a, w) => a.filter((x) => x !== null && x !== undefined).map((x) => JSON.stringify(show(x, w))).join(' '),
  toYaml: (a, w) => (arity('toYaml', 1, a, w), toYaml(a[0])),
  nindent: (a, w) => (arity('nindent', 2, a, w), `\n${indentText(a[0] as number, show(a[1], w))}`),
  indent: (a, w) => (arity('indent', 2, a, w), indentText(a[0] as number, show(a[1], w))),
  dict: (a, w) => {
    if (a.length % 2) throw new TemplateError(`${w}: dict needs key/value pairs`);
    const out: Record<string, Value> = {};
    for (let i = 0; i < a.length; i += 2) out[show(a[i], w)] = a[i + 1];
    return out;
  },
  printf: (a, w) => goPrintf(show(a[0], w), a.slice(1), w),
  upper: (a, w) => (arity('upper', 1, a, w), show(a[0], w).toUpperCase()),
  trunc: (a, w) => (arity('trunc', 2, a, w), show(a[1], w).slice(0, a[0] as number)),
  trimSuffix: (a, w) => {
    arity('trimSuffix', 2, a, w);
    const [suffix, s] = [show(a[0], w), show(a[1], w)];
    return suffix && s.endsWith(suffix) ? s.slice(0, -suffix.length) : s;
  },
  join: (a, w) => {
    arity('join', 2, a, w);
    if (!Array.isArray(a[1])) throw new TemplateError(`${w}: join needs a list`);
    return a[1].map((x) => show(x, w)).join(show(a[0], w));
  },
  eq: (a, w) => eqArgs(a, w),
  ne: (a, w) => (arity('ne', 2, a, w), !eqArgs(a, w)),
  not: (a, w) => (arity('not', 1, a, w), !truthy(a[0])),
  // Go's and/or return an argument, not a boolean.
  and: (a) => a.find((x) => !truthy(x)) ?? a[a.length - 1],
  or: (a) => a.find((x) => truthy(x)) ?? a[a.length - 1],
};

// ---- execution

/** Parsed templates of a chart (or any set of files) ready to render. */
export interface TemplateSet {
  /** Renders a parsed file with `data` as dot and `$`. */
  render(template: string, data: Value): string;
}

/** Parses every file (name → text); files are rendered by name, `define`s are shared. */
export function parseTemplates(files: Record<string, string>): TemplateSet {
  const defines = new Map<string, Node[]>();
  const parsed = new Map<string, Node[]>();
  for (const [name, text] of Object.entries(files)) parsed.set(name, parseTemplate(text, name, defines));

  const lookupVar = (scope: Scope, name: string, where: string): Value => {
    for (let i = scope.length - 1; i >= 0; i--) if (scope[i]!.has(name)) return scope[i]!.get(name);
    throw new TemplateError(`${where}: undefined variable ${name}`);
  };

  const field = (base: Value, path: string[], label: string, where: string): Value => {
    let v = base;
    let at = label;
    for (const key of path) {
      if (!isMap(v)) throw new TemplateError(`${where}: nil pointer evaluating ${at}.${key}`);
      if (!(key in v)) throw new TemplateError(`${where}: map has no entry for key "${key}" (${at}.${key})`);
      v = v[key];
      at = `${at}.${key}`;
    }
    return v;
  };

  const evalOperand = (op: Operand, dot: Value, scope: Scope, where: string): Value => {
    switch (op.kind) {
      case 'literal': return op.value;
      case 'field':
        return op.base === 'dot' ? field(dot, op.path, '', where) : field(lookupVar(scope, op.base, where), op.path, op.base, where);
      case 'sub': return evalPipe(op.pipe, dot, scope, where);
      case 'ident': return callFn(op.name, [], where, dot);
    }
  };

  const callFn = (name: string, args: Value[], where: string, _dot: Value): Value => {
    if (name === 'include') {
      arity('include', 2, args, where);
      return execDefine(show(args[0], where), args[1], where);
    }
    const fn = FUNCTIONS[name];
    if (!fn) throw new TemplateError(`${where}: function "${name}" is outside the supported subset`);
    return fn(args, where);
  };

  const evalPipe = (pipe: Pipeline, dot: Value, scope: Scope, where: string): Value => {
    let result: Value;
    pipe.commands.forEach((command, n) => {
      const [head, ...rest] = command;
      if (head!.kind === 'ident') {
        const args = rest.map((o) => evalOperand(o, dot, scope, where));
        if (n > 0) args.push(result);
        result = callFn(head!.name, args, where, dot);
      } else {
        if (rest.length || n > 0) throw new TemplateError(`${where}: can't give arguments to a non-function`);
        result = evalOperand(head!, dot, scope, where);
      }
    });
    if (pipe.decl) {
      if (pipe.decl.op === ':=') scope[scope.length - 1]!.set(pipe.decl.name, result);
      else {
        const owner = [...scope].reverse().find((s) => s.has(pipe.decl!.name));
        if (!owner) throw new TemplateError(`${where}: undefined variable ${pipe.decl.name}`);
        owner.set(pipe.decl.name, result);
      }
    }
    return result;
  };

  const exec = (nodes: Node[], dot: Value, scope: Scope, where: string): string => {
    let out = '';
    const block = (body: Node[], d: Value, vars: Record<string, Value> = {}) =>
      exec(body, d, [...scope, new Map(Object.entries(vars))], where);
    for (const node of nodes) {
      switch (node.kind) {
        case 'text': out += node.text; break;
        case 'output': {
          const v = evalPipe(node.pipe, dot, scope, where);
          if (!node.pipe.decl) out += show(v, where);
          break;
        }
        case 'if': {
          const hit = node.branches.find((b) => truthy(evalPipe(b.cond, dot, scope, where)));
          out += block(hit ? hit.body : node.otherwise, dot);
          break;
        }
        case 'with': {
          const v = evalPipe(node.pipe, dot, scope, where);
          out += truthy(v) ? block(node.body, v) : block(node.otherwise, dot);
          break;
        }
        case 'range': {
          const v = evalPipe(node.pipe, dot, scope, where);
          const entries: Array<[Value, Value]> = Array.isArray(v)
            ? v.map((x, k) => [k, x])
            : isMap(v) ? Object.keys(v).sort().map((k) => [k, v[k]]) : v === null || v === undefined ? [] : (() => { throw new TemplateError(`${where}: range over ${typeof v}`); })();
          if (!entries.length) out += block(node.otherwise, dot);
          for (const [k, x] of entries) {
            const vars: Record<string, Value> = {};
            if (node.keyVar) vars[node.keyVar] = k;
            if (node.valueVar) vars[node.valueVar] = x;
            out += block(node.body, x, vars);
          }
          break;
        }
        case 'template':
          out += execDefine(node.name, node.pipe ? evalPipe(node.pipe, dot, scope, where) : null, where);
          break;
      }
    }
    return out;
  };

  const execDefine = (name: string, data: Value, where: string): string => {
    const body = defines.get(name);
    if (!body) throw new TemplateError(`${where}: no template "${name}"`);
    return exec(body, data, [new Map([['$', data]])], `${where} → ${name}`);
  };

  return {
    render(template, data) {
      const nodes = parsed.get(template);
      if (!nodes) throw new TemplateError(`no file ${template}`);
      return exec(nodes, data, [new Map([['$', data]])], template);
    },
  };
}

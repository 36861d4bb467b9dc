/**
 * Splits a filter into tokens. Follows the lexer rules of ZitiQl.g4 in openziti/ziti
 * (controller/storage/zitiql): double-quoted strings with the escapes \" \\ \f \n \r \t and no
 * control characters, numbers `-?INT(.DIGITS)?EXP?`, `datetime(RFC3339)`, dotted identifiers
 * (optionally in single quotes), and the operators = != < <= > >=. Keywords are identifiers
 * the parser compares case-insensitively.
 */
import { filterError } from './errors.js';

export type Token =
  | { kind: 'ident'; text: string; quoted: boolean; pos: number }
  | { kind: 'string'; value: string; pos: number }
  | { kind: 'number'; value: number; text: string; pos: number }
  | { kind: 'datetime'; value: Date; pos: number }
  | { kind: 'op'; text: '=' | '!=' | '<' | '<=' | '>' | '>='; pos: number }
  | { kind: '(' | ')' | '[' | ']' | ','; pos: number }
  | { kind: 'eof'; pos: number };

const IDENT = /[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?(?:0|[1-9][0-9]*))?/y;
const RFC3339 = /\s*([0-9]+)-(0[1-9]|1[012])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]|60)(\.[0-9]+)?([Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])\s*\)/y;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', f: '\f', n: '\n', r: '\r', t: '\t' };
const WS = new Set([' ', '\t', '\n', '\r']);

function isControl(ch: string): boolean {
  return ch.charCodeAt(0) < 0x20;
}

/** Tokenises the whole text; throws INVALID_FILTER at the first character that fits no rule. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const match = (re: RegExp): RegExpExecArray | null => {
    re.lastIndex = i;
    return re.exec(text);
  };
  while (i < text.length) {
    const ch = text[i]!;
    const pos = i;
    if (WS.has(ch)) {
      i++;
    } else if ('()[],'.includes(ch)) {
      tokens.push({ kind: ch as '(' | ')' | '[' | ']' | ',', pos });
      i++;
    } else if (ch === '"') {
      const { value, end } = readString(text, i);
      tokens.push({ kind: 'string', value, pos });
      i = end;
    } else if (ch === "'") {
      const end = text.indexOf("'", i + 1);
      const inner = end < 0 ? '' : text.slice(i + 1, end);
      if (end < 0 || inner === '' || [...inner].some(isControl) || !/^[A-Za-z]/.test(inner)) {
        throw filterError(text, pos, 'expected a quoted identifier such as \'tags.owner\'');
      }
      tokens.push({ kind: 'ident', text: inner, quoted: true, pos });
      i = end + 1;
    } else if (ch === '=' || ch === '<' || ch === '>' || ch === '!') {
      const two = text.slice(i, i + 2);
      if (two === '!=' || two === '<=' || two === '>=') {
        tokens.push({ kind: 'op', text: two, pos });
        i += 2;
      } else if (ch === '!') {
        throw filterError(text, pos, 'expected "!=" ');
      } else {
        tokens.push({ kind: 'op', text: ch as '=' | '<' | '>', pos });
        i++;
      }
    } else if (ch === '-' || (ch >= '0' && ch <= '9')) {
      const m = match(NUMBER);
      if (!m) throw filterError(text, pos, 'expected a number');
      const value = Number(m[0]);
      if (!Number.isFinite(value)) throw filterError(text, pos, 'number out of range');
      tokens.push({ kind: 'number', value, text: m[0], pos });
      i += m[0].length;
    } else if (/[A-Za-z]/.test(ch)) {
      const m = match(IDENT)!;
      i += m[0].length;
      if (m[0].toLowerCase() === 'datetime' && text[i] === '(') {
        const d = readDatetime(text, pos, i + 1);
        tokens.push({ kind: 'datetime', value: d.value, pos });
        i = d.end;
      } else {
        tokens.push({ kind: 'ident', text: m[0], quoted: false, pos });
      }
    } else {
      throw filterError(text, pos, `unexpected character ${JSON.stringify(ch)}`);
    }
  }
  tokens.push({ kind: 'eof', pos: text.length });
  return tokens;
}

function readString(text: string, start: number): { value: string; end: number } {
  let value = '';
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') return { value, end: i + 1 };
    if (ch === '\\') {
      const esc = ESCAPES[text[i + 1] ?? ''];
      if (esc === undefined) throw filterError(text, i, 'invalid escape in string; allowed are \\" \\\\ \\f \\n \\r \\t');
      value += esc;
      i += 2;
    } else if (isControl(ch)) {
      throw filterError(text, i, 'control character in string');
    } else {
      value += ch;
      i++;
    }
  }
  throw filterError(text, start, 'unterminated string');
}

function readDatetime(text: string, pos: number, from: number): { value: Date; end: number } {
  RFC3339.lastIndex = from;
  const m = RFC3339.exec(text);
  const value = m ? new Date(m[0].slice(0, m[0].lastIndexOf(')')).trim()) : undefined;
  if (!m || !value || Number.isNaN(value.getTime())) {
    throw filterError(text, pos, 'expected datetime(YYYY-MM-DDThh:mm:ss[.fraction](Z|±hh:mm))');
  }
  // Postgres has no year 0 and ISO strings change form past 9999: keep to years 1..9999.
  const year = value.getUTCFullYear();
  if (year < 1 || year > 9999) throw filterError(text, pos, 'datetime out of range (years 0001 to 9999)');
  return { value, end: from + m[0].length };
}

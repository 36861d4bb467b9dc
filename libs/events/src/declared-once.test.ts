/**
 * Every subject is spelled in this lib only: a subject written as a string elsewhere is one a
 * publisher and its consumers can spell differently without any build or test noticing.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ALL_SUBJECTS } from './index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The services, by the token that would name them as a subject's owner. */
const OWNER_TOKENS = readdirSync(join(ROOT, 'services')).filter((d) => statSync(join(ROOT, 'services', d)).isDirectory());

/**
 * Whether the text of a string (a template's `${…}` parts as `*`) is a subject:
 * `edge.<service>.…`. Not a subject: a proto package (`edge.<service>.v1`) or a key of the
 * form `<name>:<id>` (locks, sealing contexts).
 */
function isSubject(text: string, owners: readonly string[] = OWNER_TOKENS): boolean {
  const tokens = text.split('.');
  if (tokens[0] !== 'edge' || !owners.includes(tokens[1] ?? '')) return false;
  return !text.includes(':') && !/^v\d+$/.test(tokens[2] ?? '');
}

/** The strings of a source file that are subjects, with their line. */
function subjectLiterals(fileName: string, source: string, owners?: readonly string[]): Array<{ line: number; text: string }> {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: Array<{ line: number; text: string }> = [];
  const visit = (node: ts.Node): void => {
    let text: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
    else if (ts.isTemplateExpression(node)) text = node.head.text + node.templateSpans.map((s) => `*${s.literal.text}`).join('');
    if (text !== undefined && isSubject(text, owners)) found.push({ line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1, text });
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The hand-written TypeScript sources of services and libs, tests and this lib left out. */
function sources(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'gen') walk(path);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) {
        files.push(path);
      }
    }
  };
  for (const group of ['services', 'libs']) {
    for (const pkg of readdirSync(join(ROOT, group))) {
      if (group === 'libs' && pkg === 'events') continue;
      const src = join(ROOT, group, pkg, 'src');
      if (statSync(src, { throwIfNoEntry: false })?.isDirectory()) walk(src);
    }
  }
  return files;
}

describe('subjects outside @edge/events', () => {
  it('finds subjects in strings and templates, not in comments or other names', () => {
    const source = [
      "/** Published on `edge.auth.mfa.deleted`. */",
      "const a = 'edge.auth.mfa.deleted';",
      'const b = (kind: string) => `edge.identity.${kind}-router.deleted`;',
      "const c = trace.getTracer('edge.bus');",
      'const d = `edge.pki.bootstrap:${schema}`;',
      "const e = 'edge.identity.v1.IdentityService';",
      "bus.subscribe(\"edge.policy.>\", handler);",
    ].join('\n');
    expect(subjectLiterals('sample.ts', source, ['auth', 'identity', 'pki', 'policy'])).toEqual([
      { line: 2, text: 'edge.auth.mfa.deleted' },
      { line: 3, text: 'edge.identity.*-router.deleted' },
      { line: 7, text: 'edge.policy.>' },
    ]);
  });

  it('leaves no subject spelled in services/*/src or libs/*/src', () => {
    const files = sources();
    expect(files.length).toBeGreaterThan(100);
    const stray = files.flatMap((f) => subjectLiterals(f, readFileSync(f, 'utf8')).map((s) => `${relative(ROOT, f)}:${s.line} ${s.text}`));
    expect(stray).toEqual([]);
  });

  // A migration cannot import a constant (and is never edited once released): a subject it
  // records, from a trigger, must still be one the lib declares.
  it('has every subject a migration records declared here', () => {
    const named: string[] = [];
    for (const service of OWNER_TOKENS) {
      const dir = join(ROOT, 'services', service, 'migrations');
      if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) continue;
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql'))) {
        const sql = readFileSync(join(dir, file), 'utf8').replace(/--.*$/gm, '');
        for (const m of sql.matchAll(/'(edge\.[^']*)'/g)) if (isSubject(m[1]!)) named.push(m[1]!);
      }
    }
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((s) => !ALL_SUBJECTS.includes(s))).toEqual([]);
  });
});

/**
 * The Go-template subset the chart is rendered with: each case pins a behaviour of Go's
 * text/template (or Sprig/Helm) the chart depends on, with the output Go produces.
 */
import { describe, expect, it } from 'vitest';
import { goNumber, parseTemplates, TemplateError } from './support/go-template.js';

const render = (src: string, data: unknown = {}, helpers = '') =>
  parseTemplates({ '_helpers.tpl': helpers, 't.yaml': src }).render('t.yaml', data);

describe('Go template subset', () => {
  it('trims whitespace on the marked side only, newlines included', () => {
    expect(render('a  \n  {{- "b" }}  \n  c')).toBe('ab  \n  c');
    expect(render('a  \n  {{ "b" -}}  \n  c')).toBe('a  \n  bc');
    expect(render('x\n{{- /* a comment */ -}}\ny')).toBe('xy');
    expect(render('x{{/* kept around */}}y')).toBe('xy');
  });

  it('resolves fields, $ and variables, and prints float64 numbers as Go %v does', () => {
    const data = { Values: { port: 50051, big: 1000000, ratio: 0.5, on: true, name: 'n' } };
    expect(render('{{ .Values.port }} {{ $.Values.name }} {{ .Values.big }} {{ .Values.ratio }} {{ .Values.on }}', data)).toBe('50051 n 1e+06 0.5 true');
    expect(render('{{ $v := .Values }}{{ $v.port }}', data)).toBe('50051');
    expect(goNumber(123456789)).toBe('1.23456789e+08');
    expect(goNumber(0.00001)).toBe('1e-05');
  });

  it('fails on a missing key like helm --strict, and on a nil in the middle of a path', () => {
    expect(() => render('{{ .Values.nope }}', { Values: {} })).toThrow(/no entry for key "nope"/);
    expect(() => render('{{ .Values.a.b }}', { Values: { a: null } })).toThrow(/nil pointer/);
    expect(() => render('{{ sha256sum "x" }}')).toThrow(TemplateError);
  });

  it('uses Go truthiness in if / else if / else and with / else', () => {
    const t = '{{ if .a }}A{{ else if .b }}B{{ else }}C{{ end }}';
    expect(render(t, { a: 1, b: 0 })).toBe('A');
    expect(render(t, { a: {}, b: 'x' })).toBe('B');
    expect(render(t, { a: [], b: '' })).toBe('C');
    expect(render('{{ with .m }}{{ .k }}{{ else }}none{{ end }}', { m: { k: 'v' } })).toBe('v');
    expect(render('{{ with .m }}{{ .k }}{{ else }}none{{ end }}', { m: {} })).toBe('none');
  });

  it('ranges over maps in key order and over lists, with else for empty ones', () => {
    expect(render('{{ range $k, $v := .m }}{{ $k }}={{ $v }};{{ end }}', { m: { b: 2, a: 1 } })).toBe('a=1;b=2;');
    expect(render('{{ range .l }}[{{ . }}]{{ end }}', { l: ['x', 'y'] })).toBe('[x][y]');
    expect(render('{{ range $i, $v := .l }}{{ $i }}{{ $v }}{{ end }}', { l: ['x', 'y'] })).toBe('0x1y');
    expect(render('{{ range .l }}x{{ else }}empty{{ end }}', { l: [] })).toBe('empty');
  });

  it('scopes variables to their block and keeps $ as the root inside range', () => {
    expect(() => render('{{ if true }}{{ $x := 1 }}{{ end }}{{ $x }}')).toThrow(/undefined variable \$x/);
    expect(render('{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ end }}{{ $x }}')).toBe('2');
    expect(render('{{ range .l }}{{ $.r }}{{ end }}', { l: [1, 2], r: 'R' })).toBe('RR');
  });

  it('includes defined templates with their own dot and $, and pipes the result', () => {
    const helpers = '{{- define "h" -}}\nname: {{ .n }}\nroot: {{ $.n }}\n{{- end }}';
    expect(render('x:{{- include "h" (dict "n" "v") | nindent 2 }}', {}, helpers)).toBe('x:\n  name: v\n  root: v');
    expect(render('{{ template "h" (dict "n" 1) }}', {}, helpers)).toBe('name: 1\nroot: 1');
    expect(() => render('{{ include "missing" . }}')).toThrow(/no template "missing"/);
  });

  it('implements the Sprig functions used: toYaml, nindent, quote, default, printf, join, trunc, trimSuffix', () => {
    expect(render('r:{{ toYaml .r | nindent 2 }}', { r: { limits: { memory: '1Gi' }, a: [1] } })).toBe('r:\n  a:\n    - 1\n  limits:\n    memory: 1Gi');
    expect(render('{{ toYaml .e }}', { e: {} })).toBe('{}');
    expect(render('{{ .n | quote }} {{ quote "a\\"b" }}', { n: 10000 })).toBe('"10000" "a\\"b"');
    expect(render('{{ default "d" .a }} {{ default "d" .b }} {{ default 5 .z }}', { a: '', b: 'x', z: 0 })).toBe('d x 5');
    expect(render('{{ printf "%s-%v" "a" .p }}', { p: 50051 })).toBe('a-50051');
    expect(() => render('{{ printf "%d" .p }}', { p: 1 })).toThrow(/float64/);
    expect(render('{{ join "," .l }}|{{ "abcdef" | trunc 3 }}|{{ "a-" | trimSuffix "-" }}|{{ upper "x" }}', { l: ['a', 'b'] })).toBe('a,b|abc|a|X');
  });

  it('evaluates eq, ne, not, and, or as Go does (and/or return an operand)', () => {
    expect(render('{{ eq .a "x" }} {{ ne .a "x" }} {{ not .a }} {{ and .a .b }} {{ or .b .a }}', { a: 'x', b: '' })).toBe('true false false  x');
    expect(render('{{ if and (ne .t "ClusterIP") .p }}yes{{ end }}', { t: 'NodePort', p: 30443 })).toBe('yes');
  });

  it('refuses to print a map or list directly', () => {
    expect(() => render('{{ .m }}', { m: { a: 1 } })).toThrow(/toYaml/);
  });
});

/**
 * helm/edge-controller rendered by the real helm binary (see kube-tools.ts): `helm template`,
 * `helm lint`, and the objects parsed from what they print.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, parse } from 'yaml';
import { kubeTools, runTool, type ToolRun } from './kube-tools.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CHART_DIR = join(REPO_ROOT, 'helm/edge-controller');
/** The release name deploy/k8s is rendered with. */
export const RELEASE_NAME = 'edge';

/** The values without a default (values.schema.json requires them), as an operator would give them. */
export const REQUIRED_VALUES = {
  gateway: { advertisedAddress: 'edge.example.com:443' },
  secrets: { keyEncryptionKey: 'a'.repeat(64) },
};

/** A Kubernetes object as parsed from YAML. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

export interface Chart {
  meta: { name: string; version: string; appVersion: string };
  values: Record<string, unknown>;
  schema: Record<string, unknown>;
  /** Template file name (under templates/) → text. */
  templates: Record<string, string>;
}

/** Reads Chart.yaml, values.yaml, values.schema.json and every file of templates/. */
export function loadChart(dir = CHART_DIR): Chart {
  const tdir = join(dir, 'templates');
  return {
    meta: parse(readFileSync(join(dir, 'Chart.yaml'), 'utf8')),
    values: parse(readFileSync(join(dir, 'values.yaml'), 'utf8')),
    schema: JSON.parse(readFileSync(join(dir, 'values.schema.json'), 'utf8')),
    templates: Object.fromEntries(readdirSync(tdir).sort().map((f) => [f, readFileSync(join(tdir, f), 'utf8')])),
  };
}

/** Deep merge as Helm merges user values over the chart's (maps merge, everything else replaces). */
export function mergeValues(base: unknown, over: unknown): unknown {
  const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isMap(base) || !isMap(over)) return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = mergeValues(base[k], v);
  return out;
}

/** Runs helm with `values` given as a values file (-f), as `helm <args> -f values.yaml` would. */
export function helm(args: string[], values?: Record<string, unknown>): ToolRun {
  const { helm: bin, env } = kubeTools();
  if (!values) return runTool(bin, args, env);
  const dir = mkdtempSync(join(tmpdir(), 'edge-values-'));
  try {
    writeFileSync(join(dir, 'values.json'), JSON.stringify(values));
    return runTool(bin, [...args, '-f', join(dir, 'values.json')], env);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `helm template <release> helm/edge-controller` with the required values and `overrides` over
 * the chart's; throws with helm's message when it fails.
 */
export function renderChart(overrides: Record<string, unknown> = {}, release = RELEASE_NAME): K8sObject[] {
  return renderWith(mergeValues(REQUIRED_VALUES, overrides) as Record<string, unknown>, release);
}

/** `helm template` with exactly `values` over the chart's (nothing added). */
export function renderWith(values: Record<string, unknown>, release = RELEASE_NAME): K8sObject[] {
  return parseManifests(checked(helm(['template', release, CHART_DIR, '--namespace', 'default'], values), 'helm template'));
}

/** The objects of a multi-document YAML stream (empty documents skipped). */
export function parseManifests(text: string): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) throw new Error(doc.errors.map((e) => e.message).join('; '));
    const obj = doc.toJS() as K8sObject | null;
    if (obj !== null) objects.push(obj);
  }
  return objects;
}

/**
 * NOTES.txt as `helm install` would print it. `helm template` omits it and `helm install
 * --dry-run` needs a cluster, so a copy of the chart renders it into a ConfigMap through include.
 */
export function renderNotes(overrides: Record<string, unknown> = {}, release = RELEASE_NAME): string {
  const dir = mkdtempSync(join(tmpdir(), 'edge-chart-'));
  try {
    cpSync(CHART_DIR, dir, { recursive: true });
    const capture = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: notes}\ndata:\n  notes: {{ include (print $.Template.BasePath "/NOTES.txt") . | quote }}\n';
    writeFileSync(join(dir, 'templates/notes-capture.yaml'), capture);
    const values = mergeValues(REQUIRED_VALUES, overrides) as Record<string, unknown>;
    const out = checked(helm(['template', release, dir, '--show-only', 'templates/notes-capture.yaml'], values), 'helm template');
    return (parseManifests(out)[0] as unknown as { data: { notes: string } }).data.notes;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function checked(r: ToolRun, what: string): string {
  if (r.status !== 0) throw new Error(`${what} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

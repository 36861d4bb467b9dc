/**
 * Loads helm/edge-controller and renders it the way `helm template` would (release "edge"),
 * through the Go-template subset in go-template.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, parse } from 'yaml';
import { parseTemplates } from './go-template.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CHART_DIR = join(REPO_ROOT, 'helm/edge-controller');
/** The release name deploy/k8s is rendered with. */
export const RELEASE_NAME = 'edge';

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

/**
 * Renders every manifest template (partials `_*` and NOTES.txt are not manifests) and returns
 * the objects, as `helm template <release> helm/edge-controller [--set …]` would print them.
 */
export function renderChart(chart: Chart, overrides: Record<string, unknown> = {}, release = RELEASE_NAME): K8sObject[] {
  const set = parseTemplates(chart.templates);
  const data = {
    Values: mergeValues(chart.values, overrides),
    Release: { Name: release, Namespace: 'default', Service: 'Helm', IsInstall: true, IsUpgrade: false },
    Chart: { Name: chart.meta.name, Version: chart.meta.version, AppVersion: chart.meta.appVersion },
  };
  const objects: K8sObject[] = [];
  for (const file of Object.keys(chart.templates)) {
    if (file.startsWith('_') || file === 'NOTES.txt') continue;
    for (const doc of parseAllDocuments(set.render(file, data))) {
      if (doc.errors.length) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
      const obj = doc.toJS() as K8sObject | null;
      if (obj !== null) objects.push(obj);
    }
  }
  return objects;
}

/** Renders NOTES.txt (what `helm install` prints). */
export function renderNotes(chart: Chart, overrides: Record<string, unknown> = {}, release = RELEASE_NAME): string {
  const set = parseTemplates(chart.templates);
  return set.render('NOTES.txt', {
    Values: mergeValues(chart.values, overrides),
    Release: { Name: release, Namespace: 'default', Service: 'Helm', IsInstall: true, IsUpgrade: false },
    Chart: { Name: chart.meta.name, Version: chart.meta.version, AppVersion: chart.meta.appVersion },
  });
}

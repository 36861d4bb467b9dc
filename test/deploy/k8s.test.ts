/**
 * deploy/k8s is helm/edge-controller rendered with its default values (release "edge"), minus
 * Helm's own bookkeeping labels. `kubectl kustomize deploy/k8s` must build, contain every
 * component, and equal the chart's rendering object by object.
 *
 * After changing the chart, regenerate with:
 *   EDGE_UPDATE_K8S=1 npx vitest run test/deploy/k8s.test.ts
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { SERVICE_NAMES } from '@edge/config';
import { loadChart, renderChart, REPO_ROOT, type K8sObject } from './support/chart.js';

const K8S_DIR = join(REPO_ROOT, 'deploy/k8s');
const KUBECTL = ['/usr/bin/kubectl', '/usr/local/bin/kubectl'].find(existsSync);
/** Labels Helm sets that a kustomize deployment must not claim. */
const HELM_LABELS = ['helm.sh/chart', 'app.kubernetes.io/managed-by'];
const COMPONENTS = [...SERVICE_NAMES, 'gateway'];

/** The chart's default rendering as deploy/k8s should hold it. */
function expectedObjects(): K8sObject[] {
  return renderChart(loadChart()).map((o) => {
    const copy = structuredClone(o);
    for (const l of HELM_LABELS) delete copy.metadata.labels?.[l];
    return copy;
  });
}

/** The file of deploy/k8s an object lives in: one per component, shared objects in config.yaml. */
function fileOf(o: K8sObject): string {
  const c = o.metadata.labels?.['app.kubernetes.io/component'] ?? '';
  return COMPONENTS.includes(c) ? `${c}.yaml` : 'config.yaml';
}

const key = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;

if (process.env.EDGE_UPDATE_K8S === '1') {
  const files = new Map<string, K8sObject[]>();
  for (const o of expectedObjects()) files.set(fileOf(o), [...(files.get(fileOf(o)) ?? []), o]);
  for (const [file, objects] of files) {
    const header = `# helm/edge-controller rendered with its default values (release "edge").\n# Edit the chart and regenerate: EDGE_UPDATE_K8S=1 npx vitest run test/deploy/k8s.test.ts\n`;
    writeFileSync(join(K8S_DIR, file), header + objects.map((o) => `---\n${stringify(o, { lineWidth: 0 })}`).join(''));
  }
}

describe('deploy/k8s', () => {
  it('lists exactly the generated files as kustomize resources', () => {
    const kustomization = parse(readFileSync(join(K8S_DIR, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
    const files = [...new Set(expectedObjects().map(fileOf))].sort();
    expect([...kustomization.resources].sort()).toEqual(files);
  });

  describe.skipIf(!KUBECTL)(`kubectl kustomize${KUBECTL ? '' : ' (skipped: no kubectl at /usr/bin or /usr/local/bin)'}`, () => {
    const built = (): K8sObject[] => {
      const out = execFileSync(KUBECTL!, ['kustomize', K8S_DIR], { encoding: 'utf8' });
      return parseAllDocuments(out).map((d) => d.toJS() as K8sObject).filter(Boolean);
    };

    it('builds and holds every component: Deployment and Service per service and the gateway, shared config', () => {
      const keys = built().map(key);
      for (const c of COMPONENTS) {
        for (const kind of ['Deployment', 'Service', 'HorizontalPodAutoscaler', 'PodDisruptionBudget']) expect(keys).toContain(`${kind}/edge-${c}`);
      }
      for (const k of ['ConfigMap/edge', 'Secret/edge', 'ServiceAccount/edge']) expect(keys).toContain(k);
    });

    it('equals the chart rendered with default values, object by object', () => {
      const actual = new Map(built().map((o) => [key(o), o]));
      const expected = new Map(expectedObjects().map((o) => [key(o), o]));
      expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [k, o] of expected) expect(actual.get(k), k).toEqual(o);
    });
  });
});

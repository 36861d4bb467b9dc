/**
 * deploy/k8s is helm/edge-controller rendered by helm with deploy/k8s/chart-values.yaml (release
 * "edge"), minus Helm's own bookkeeping labels and with EDGE_ADVERTISED_ADDRESS left empty for
 * the overlay to set. `kubectl kustomize deploy/k8s` (kubectl's built-in kustomize, from the same
 * npm package as helm) must build, equal that rendering object by object, and pass the
 * Kubernetes schemas; so must the overlay the kustomization's comment documents.
 *
 * After changing the chart, regenerate with:
 *   EDGE_UPDATE_K8S=1 npx vitest run test/deploy/k8s.test.ts
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@edge/config';
import { mergeValues, parseManifests, renderWith, REPO_ROOT, type K8sObject } from './support/chart.js';
import { k8sSchemaProblems } from './support/k8s-schema.js';
import { kubeTools, runTool } from './support/kube-tools.js';
import { allContainers, COMPONENTS, configMapData, find, get, kekConsumers, podSpecOf, secretRefs } from './support/objects.js';

const K8S_DIR = join(REPO_ROOT, 'deploy/k8s');
/** Labels Helm sets that a kustomize deployment must not claim. */
const HELM_LABELS = ['helm.sh/chart', 'app.kubernetes.io/managed-by'];

/** The chart's rendering as deploy/k8s should hold it (with `over` over chart-values.yaml). */
function expectedObjects(over: Record<string, unknown> = {}): K8sObject[] {
  const values = mergeValues(parse(readFileSync(join(K8S_DIR, 'chart-values.yaml'), 'utf8')), over) as Record<string, unknown>;
  return renderWith(values).map((o) => {
    const copy = structuredClone(o);
    for (const l of HELM_LABELS) delete copy.metadata.labels?.[l];
    // Rendered with a placeholder (the chart requires one); empty, every process refuses to start.
    if (copy.kind === 'ConfigMap' && copy.metadata.name === 'edge') (copy as unknown as { data: Record<string, string> }).data.EDGE_ADVERTISED_ADDRESS = '';
    return copy;
  });
}

/** The file of deploy/k8s an object lives in: one per component, shared objects in config.yaml. */
function fileOf(o: K8sObject): string {
  const c = o.metadata.labels?.['app.kubernetes.io/component'] ?? '';
  return (COMPONENTS as readonly string[]).includes(c) ? `${c}.yaml` : 'config.yaml';
}

const key = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;

if (process.env.EDGE_UPDATE_K8S === '1') {
  const files = new Map<string, K8sObject[]>();
  for (const o of expectedObjects()) files.set(fileOf(o), [...(files.get(fileOf(o)) ?? []), o]);
  for (const [file, objects] of files) {
    const header = `# helm/edge-controller rendered with deploy/k8s/chart-values.yaml (release "edge").\n# Edit the chart and regenerate: EDGE_UPDATE_K8S=1 npx vitest run test/deploy/k8s.test.ts\n`;
    // Quoted as YAML 1.1 wants: tools that read it so take a bare off, on, yes or no for a boolean.
    writeFileSync(join(K8S_DIR, file), header + objects.map((o) => `---\n${stringify(o, { lineWidth: 0, version: '1.1' })}`).join(''));
  }
}

/** `kubectl kustomize <dir>` with the packaged kubectl; throws with its message when it fails. */
function kustomize(dir: string): K8sObject[] {
  const { kubectl, env } = kubeTools();
  const r = runTool(kubectl, ['kustomize', dir], env);
  if (r.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${r.stderr}`);
  return parseManifests(r.stdout);
}

/** The environment a component's main container sees, with the Secret's keys resolved from `secret`. */
function environment(objects: K8sObject[], c: string, secret: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { ...configMapData(objects, 'edge') };
  for (const e of podSpecOf(objects, `edge-${c}`).containers[0]!.env!) {
    const ref = e.valueFrom?.secretKeyRef;
    if (!ref) env[e.name] = e.value!;
    else if (ref.key in secret) env[e.name] = secret[ref.key]!;
  }
  return env;
}

describe('deploy/k8s', () => {
  it('lists exactly the generated files as kustomize resources', () => {
    const kustomization = parse(readFileSync(join(K8S_DIR, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
    const files = [...new Set(expectedObjects().map(fileOf))].sort();
    expect([...kustomization.resources].sort()).toEqual(files);
  });

  it('builds with kubectl kustomize and holds every component, its network policy, and the shared config', () => {
    const keys = kustomize(K8S_DIR).map(key);
    for (const c of COMPONENTS) {
      for (const kind of ['Deployment', 'Service', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'NetworkPolicy']) expect(keys).toContain(`${kind}/edge-${c}`);
    }
    for (const k of ['ConfigMap/edge', 'ServiceAccount/edge', 'PersistentVolumeClaim/edge-snapshots']) expect(keys).toContain(k);
    // The Secret comes from the overlay, never with placeholder values from the base.
    expect(keys.filter((k) => k.startsWith('Secret/'))).toEqual([]);
  });

  it('equals the chart rendered with deploy/k8s/chart-values.yaml, object by object', () => {
    const actual = new Map(kustomize(K8S_DIR).map((o) => [key(o), o]));
    const expected = new Map(expectedObjects().map((o) => [key(o), o]));
    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [k, o] of expected) expect(actual.get(k), k).toEqual(o);
  });

  it('builds objects the Kubernetes schemas accept', async () => {
    expect(await k8sSchemaProblems(kustomize(K8S_DIR))).toEqual([]);
  });

  it('keeps every process from starting until an overlay sets the advertised address and the key-encryption key', () => {
    const objects = kustomize(K8S_DIR);
    for (const c of COMPONENTS) {
      const env = environment(objects, c, { EDGE_KEY_ENCRYPTION_KEY: 'a'.repeat(64) });
      expect(() => loadConfig(env), c).toThrow(ConfigError);
      expect(() => loadConfig(env), c).toThrow(/EDGE_ADVERTISED_ADDRESS: unset, and EDGE_HTTP_ADDR "0.0.0.0:1280"/);
    }
    // Kubernetes refuses to start a container whose required Secret key is missing.
    for (const c of kekConsumers()) {
      for (const k of allContainers(objects, `edge-${c}`)) expect(secretRefs(k).EDGE_KEY_ENCRYPTION_KEY, c).toEqual({ secret: 'edge', key: 'EDGE_KEY_ENCRYPTION_KEY', optional: false });
    }
  });
});

describe('deploy/k8s/mtls (internal mutual TLS as a kustomize component)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'edge-mtls-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const build = () => {
    writeFileSync(join(dir, 'kustomization.yaml'), `resources: [${relative(dir, K8S_DIR)}]\ncomponents: [${relative(dir, join(K8S_DIR, 'mtls'))}]\n`);
    return kustomize(dir);
  };

  it('equals the chart rendered with config.grpcTls "mtls", object by object, and passes the Kubernetes schemas', async () => {
    const actual = new Map(build().map((o) => [key(o), o]));
    const expected = new Map(expectedObjects({ config: { grpcTls: 'mtls' } }).map((o) => [key(o), o]));
    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [k, o] of expected) expect(actual.get(k), k).toEqual(o);
    expect(await k8sSchemaProblems([...actual.values()])).toEqual([]);
  });

  it('gives every process an environment libs/config accepts as mtls once the Secret has the join token', () => {
    const objects = build();
    const token = 'c'.repeat(64);
    for (const c of COMPONENTS) {
      const env = { ...environment(objects, c, { EDGE_GRPC_JOIN_TOKEN: token }), EDGE_ADVERTISED_ADDRESS: 'edge.example.com:443' };
      expect(loadConfig(env).grpc.tls, c).toEqual({ mode: 'mtls', joinToken: token });
    }
  });
});

describe('the overlay documented in deploy/k8s/kustomization.yaml', () => {
  const dir = mkdtempSync(join(tmpdir(), 'edge-overlay-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const kek = 'b'.repeat(64);

  /** The commented kustomization at the top of deploy/k8s/kustomization.yaml, pointed at deploy/k8s from `dir`. */
  function documentedOverlay(): string {
    const comment = readFileSync(join(K8S_DIR, 'kustomization.yaml'), 'utf8').split('\n').filter((l) => l.startsWith('#')).map((l) => l.replace(/^# ?/, ''));
    const start = comment.findIndex((l) => l.trim().startsWith('apiVersion: kustomize.config.k8s.io'));
    const end = comment.findIndex((l, i) => i > start && l.trim() === '');
    const text = comment.slice(start, end).map((l) => l.replace(/^ {2}/, '')).join('\n');
    expect(text).toContain('resources: [../../deploy/k8s]');
    return text.replace('../../deploy/k8s', relative(dir, K8S_DIR));
  }

  it('builds, passes the Kubernetes schemas, and gives every process what it needs to start', async () => {
    writeFileSync(join(dir, 'kustomization.yaml'), documentedOverlay());
    writeFileSync(join(dir, 'edge.env'), `EDGE_DATABASE_URL=postgres://edge:pw@db.example.com:5432/edge\nEDGE_NATS_URL=nats://nats.example.com:4222\nEDGE_KEY_ENCRYPTION_KEY=${kek}\n`);
    const objects = kustomize(dir);
    expect(await k8sSchemaProblems(objects)).toEqual([]);
    expect(find(objects, 'Deployment', 'edge-auth')!.metadata).toMatchObject({ namespace: 'edge' });
    const secret = get<{ data: Record<string, string> }>(objects, 'Secret', 'edge').data;
    const decoded = Object.fromEntries(Object.entries(secret).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
    for (const c of COMPONENTS) {
      const config = loadConfig(environment(objects, c, decoded));
      expect(config.http.advertisedAddress, c).toBe('edge.example.com:443');
      expect(config.keyEncryptionKey, c).toBe(kekConsumers().includes(c) ? kek : undefined);
    }
  });
});

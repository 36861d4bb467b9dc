/**
 * helm/edge-controller without a helm binary: every value the templates read is defined and
 * described by the schema, values.yaml validates against the schema, the schema rejects what
 * Kubernetes or the processes would reject, and the templates render what each option promises.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig, SERVICE_NAMES } from '@edge/config';
import { loadChart, mergeValues, renderChart, renderNotes, REPO_ROOT, type K8sObject } from './support/chart.js';

const chart = loadChart();
const allTemplates = Object.values(chart.templates).join('\n');

type Json = Record<string, unknown>;

/** Value paths the templates read: `.Values.a.b` directly and through the variables bound to parts of .Values. */
function referencedPaths(): string[] {
  const paths = new Set<string>();
  for (const m of allTemplates.matchAll(/\.Values((?:\.[A-Za-z0-9_]+)+)/g)) paths.add(m[1]!.slice(1));
  // Variables and dict keys the templates bind to a part of .Values (see services.yaml, gateway.yaml, _helpers.tpl).
  const aliases: Record<string, string[]> = {
    '\\$svc': SERVICE_NAMES.map((s) => `services.${s}`),
    '\\$gw': ['gateway'],
    '\\$c': ['config'],
    '\\.spec': [...SERVICE_NAMES.map((s) => `services.${s}`), 'gateway'],
  };
  for (const [alias, roots] of Object.entries(aliases)) {
    for (const m of allTemplates.matchAll(new RegExp(`${alias}((?:\\.[A-Za-z0-9_]+)+)`, 'g'))) {
      for (const root of roots) paths.add(`${root}${m[1]}`);
    }
  }
  return [...paths].sort();
}

function hasPath(obj: unknown, path: string): boolean {
  let v = obj;
  for (const key of path.split('.')) {
    if (typeof v !== 'object' || v === null || !(key in v)) return false;
    v = (v as Json)[key];
  }
  return true;
}

function schemaHasPath(schema: Json, path: string): boolean {
  const resolve = (s: Json): Json => (typeof s.$ref === 'string' ? resolve(s.$ref.slice(2).split('/').reduce<Json>((o, k) => o[k] as Json, schema)) : s);
  let s = resolve(schema);
  for (const key of path.split('.')) {
    const props = s.properties as Record<string, Json> | undefined;
    if (!props?.[key]) return false;
    s = resolve(props[key]!);
  }
  return true;
}

function validator() {
  const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
  return ajv.compile(chart.schema);
}

const find = (objects: K8sObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
type Container = { name: string; args?: string[]; env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }> };
const podSpec = (d: K8sObject | undefined) => (d as unknown as { spec: { replicas?: number; template: { spec: { containers: Container[]; initContainers?: Container[] } } } }).spec;

describe('helm/edge-controller values', () => {
  it('defines every value path the templates read, in values.yaml and in the schema', () => {
    const paths = referencedPaths();
    expect(paths.length).toBeGreaterThan(40);
    expect(paths).toContain('services.pki.grpcPort');
    expect(paths.filter((p) => !hasPath(chart.values, p))).toEqual([]);
    expect(paths.filter((p) => !schemaHasPath(chart.schema, p))).toEqual([]);
  });

  it('documents every value of values.yaml in the schema (nothing the schema would reject)', () => {
    const validate = validator();
    const valid = validate(chart.values);
    expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
    expect(valid).toBe(true);
  });

  it.each([
    ['a misspelt key', { gateway: { replica: 3 } }, 'additionalProperties'],
    ['an unknown Service type', { gateway: { service: { type: 'Ingress' } } }, 'enum'],
    ['a gRPC port out of range', { services: { auth: { grpcPort: 0 } } }, 'minimum'],
    ['a NATS URL over http', { secrets: { natsUrl: 'http://nats:4222' } }, 'pattern'],
    ['a subject prefix without its dot', { config: { natsSubjectPrefix: 'edge' } }, 'pattern'],
    ['an admin password shorter than the controller accepts', { secrets: { adminPassword: 'abc' } }, 'minLength'],
    ['an advertised address without port', { gateway: { advertisedAddress: 'edge.example.com' } }, 'pattern'],
  ])('rejects %s', (_what, override, keyword) => {
    const validate = validator();
    expect(validate(mergeValues(chart.values, override))).toBe(false);
    expect(JSON.stringify(validate.errors)).toContain(keyword);
  });
});

describe('helm/edge-controller templates', () => {
  const objects = renderChart(chart);

  it('renders a Deployment, headless Service, HPA and PDB per service, and the gateway behind a TCP LoadBalancer on 443', () => {
    for (const s of SERVICE_NAMES) {
      for (const kind of ['Deployment', 'Service', 'HorizontalPodAutoscaler', 'PodDisruptionBudget']) expect(find(objects, kind, `edge-${s}`), `${kind} edge-${s}`).toBeDefined();
      expect((find(objects, 'Service', `edge-${s}`) as unknown as { spec: { clusterIP: string } }).spec.clusterIP).toBe('None');
    }
    const gw = find(objects, 'Service', 'edge-gateway') as unknown as { spec: { type: string; ports: Array<{ port: number; protocol: string; targetPort: string }> } };
    expect(gw.spec.type).toBe('LoadBalancer');
    expect(gw.spec.ports).toEqual([{ name: 'https', port: 443, targetPort: 'https', protocol: 'TCP' }]);
    expect(objects.filter((o) => o.kind === 'Ingress')).toEqual([]);
  });

  it('points every gRPC target at the headless Service through the dns resolver, on the port the service listens on', () => {
    const cm = find(objects, 'ConfigMap', 'edge') as unknown as { data: Record<string, string> };
    for (const s of SERVICE_NAMES) {
      const port = (chart.values.services as Record<string, { grpcPort: number }>)[s]!.grpcPort;
      expect(cm.data[`EDGE_${s.toUpperCase()}_GRPC_ADDR`]).toBe(`dns:///edge-${s}:${port}`);
      const main = podSpec(find(objects, 'Deployment', `edge-${s}`)).template.spec.containers[0]!;
      expect(main.env).toContainEqual({ name: 'EDGE_GRPC_LISTEN_ADDR', value: `0.0.0.0:${port}` });
    }
  });

  it('hands each process only the secrets it uses', () => {
    const secretKeys = (name: string) => podSpec(find(objects, 'Deployment', name)).template.spec.containers[0]!.env!.filter((e) => e.valueFrom).map((e) => e.name).sort();
    expect(secretKeys('edge-gateway')).toEqual(['EDGE_NATS_URL']);
    expect(secretKeys('edge-auth')).toEqual(['EDGE_ADMIN_PASSWORD', 'EDGE_DATABASE_URL', 'EDGE_NATS_URL']);
    expect(secretKeys('edge-pki')).toEqual(['EDGE_DATABASE_URL', 'EDGE_KEY_ENCRYPTION_KEY', 'EDGE_NATS_URL']);
    expect(secretKeys('edge-policy')).toEqual(['EDGE_DATABASE_URL', 'EDGE_NATS_URL']);
  });

  it('runs `migrate` in an init container before each service, and not when disabled', () => {
    for (const s of SERVICE_NAMES) expect(podSpec(find(objects, 'Deployment', `edge-${s}`)).template.spec.initContainers?.[0]?.args).toEqual(['migrate']);
    const off = renderChart(chart, { migrations: { enabled: false } });
    expect(podSpec(find(off, 'Deployment', 'edge-auth')).template.spec.initContainers).toBeUndefined();
  });

  it('leaves replicas to the HPA when autoscaling, and renders neither HPA nor PDB when switched off', () => {
    expect(podSpec(find(objects, 'Deployment', 'edge-policy')).replicas).toBeUndefined();
    const off = renderChart(chart, { services: { policy: { replicas: 3, autoscaling: { enabled: false }, podDisruptionBudget: { enabled: false } } } });
    expect(podSpec(find(off, 'Deployment', 'edge-policy')).replicas).toBe(3);
    expect(find(off, 'HorizontalPodAutoscaler', 'edge-policy')).toBeUndefined();
    expect(find(off, 'PodDisruptionBudget', 'edge-policy')).toBeUndefined();
    expect(find(off, 'HorizontalPodAutoscaler', 'edge-auth')).toBeDefined();
  });

  it('uses an existing Secret instead of rendering one', () => {
    const ext = renderChart(chart, { secrets: { existingSecret: 'my-edge-secrets' } });
    expect(ext.filter((o) => o.kind === 'Secret')).toEqual([]);
    const env = podSpec(find(ext, 'Deployment', 'edge-auth')).template.spec.containers[0]!.env!;
    expect(env.filter((e) => e.valueFrom).every((e) => e.valueFrom!.secretKeyRef.name === 'my-edge-secrets')).toBe(true);
  });

  it('pins a NodePort only on a NodePort or LoadBalancer Service', () => {
    const np = renderChart(chart, { gateway: { service: { type: 'NodePort', nodePort: 30443 } } });
    expect((find(np, 'Service', 'edge-gateway') as unknown as { spec: { ports: Array<{ nodePort?: number }> } }).spec.ports[0]!.nodePort).toBe(30443);
    const cip = renderChart(chart, { gateway: { service: { type: 'ClusterIP', nodePort: 30443 } } });
    const spec = (find(cip, 'Service', 'edge-gateway') as unknown as { spec: Json & { ports: Array<{ nodePort?: number }> } }).spec;
    expect(spec.ports[0]!.nodePort).toBeUndefined();
    expect(spec.externalTrafficPolicy).toBeUndefined();
  });

  it('runs every container as non-root on a read-only root filesystem, with /data and /tmp writable', () => {
    for (const d of objects.filter((o) => o.kind === 'Deployment')) {
      const spec = (d as unknown as { spec: { template: { spec: { securityContext: Json; containers: Array<Json & { volumeMounts: Array<{ mountPath: string }> }> } } } }).spec.template.spec;
      expect(spec.securityContext.runAsNonRoot).toBe(true);
      for (const c of spec.containers) {
        expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
        expect(c.volumeMounts.map((m) => m.mountPath).sort()).toEqual(['/data', '/tmp']);
      }
    }
  });

  it('serves /metrics on the same port in every pod, exposed and annotated for Prometheus, unless disabled', () => {
    const cm = (o: K8sObject[]) => (find(o, 'ConfigMap', 'edge') as unknown as { data: Record<string, string> }).data;
    expect(cm(objects).EDGE_METRICS_ADDR).toBe('0.0.0.0:9464');
    for (const c of [...SERVICE_NAMES, 'gateway']) {
      const d = find(objects, 'Deployment', `edge-${c}`) as unknown as { spec: { template: { metadata: { annotations: Record<string, string> }; spec: { containers: Array<{ ports: Array<{ name: string; containerPort: number }> }> } } } };
      expect(d.spec.template.metadata.annotations).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9464', 'prometheus.io/path': '/metrics' });
      expect(d.spec.template.spec.containers[0]!.ports).toContainEqual({ name: 'metrics', containerPort: 9464, protocol: 'TCP' });
    }
    const off = renderChart(chart, { metrics: { enabled: false }, services: { auth: { podAnnotations: { team: 'edge' } } } });
    expect(cm(off).EDGE_METRICS_ADDR).toBeUndefined();
    const auth = find(off, 'Deployment', 'edge-auth') as unknown as { spec: { template: { metadata: { annotations?: Record<string, string> }; spec: { containers: Array<{ ports: Array<{ name: string }> }> } } } };
    expect(auth.spec.template.metadata.annotations).toEqual({ team: 'edge' });
    expect(auth.spec.template.spec.containers[0]!.ports.map((p) => p.name)).toEqual(['grpc']);
    expect((find(off, 'Deployment', 'edge-policy') as unknown as { spec: { template: { metadata: Json } } }).spec.template.metadata.annotations).toBeUndefined();
  });

  it('gives each process an environment libs/config accepts, naming only variables it reads', () => {
    const known = new Set(readFileSync(join(REPO_ROOT, 'libs/config/src/index.ts'), 'utf8').match(/EDGE_[A-Z0-9_]+(?=:)/g));
    const cm = (find(objects, 'ConfigMap', 'edge') as unknown as { data: Record<string, string> }).data;
    const secret = (find(objects, 'Secret', 'edge') as unknown as { stringData: Record<string, string> }).stringData;
    for (const c of [...SERVICE_NAMES, 'gateway']) {
      const main = podSpec(find(objects, 'Deployment', `edge-${c}`)).template.spec.containers[0]!;
      const env: Record<string, string> = { ...cm };
      for (const e of main.env!) env[e.name] = e.valueFrom ? secret[e.valueFrom.secretKeyRef.key]! : e.value!;
      expect(Object.keys(env).filter((k) => !known.has(k)), c).toEqual([]);
      const config = loadConfig(env);
      expect(config.dataDir).toBe('/data');
      expect(config.metrics.addr).toBe('0.0.0.0:9464');
      expect(config.grpc.targets.identity).toBe('dns:///edge-identity:50053');
      if (c === 'gateway') expect(config.http.addr).toBe('0.0.0.0:1280');
      else expect(config.database.url).toBe('postgres://edge@edge-postgresql:5432/edge');
    }
  });

  it('applies fullnameOverride to every name and reference', () => {
    const named = renderChart(chart, { fullnameOverride: 'zt' });
    expect(named.every((o) => o.metadata.name === 'zt' || o.metadata.name.startsWith('zt-'))).toBe(true);
    expect((find(named, 'ConfigMap', 'zt') as unknown as { data: Json }).data.EDGE_AUTH_GRPC_ADDR).toBe('dns:///zt-auth:50051');
  });

  it('warns in NOTES.txt when no key-encryption key or advertised address is set', () => {
    expect(renderNotes(chart)).toContain('no key-encryption key');
    const set = renderNotes(chart, { secrets: { keyEncryptionKey: 'k'.repeat(64) }, gateway: { advertisedAddress: 'edge.example.com:443' } });
    expect(set).not.toContain('WARNING');
  });
});

describe('helm/edge-controller-stack', () => {
  const dir = join(REPO_ROOT, 'helm/edge-controller-stack');
  const meta = parse(readFileSync(join(dir, 'Chart.yaml'), 'utf8')) as { dependencies: Array<{ name: string; condition?: string; repository: string }> };
  const values = parse(readFileSync(join(dir, 'values.yaml'), 'utf8')) as Record<string, Json>;

  it('makes Postgres and NATS optional subcharts, and keeps edge-controller itself free of dependencies', () => {
    const byName = Object.fromEntries(meta.dependencies.map((d) => [d.name, d]));
    expect(byName['edge-controller']?.repository).toBe('file://../edge-controller');
    expect(byName.postgresql?.condition).toBe('postgresql.enabled');
    expect(byName.nats?.condition).toBe('nats.enabled');
    expect((parse(readFileSync(join(REPO_ROOT, 'helm/edge-controller/Chart.yaml'), 'utf8')) as Json).dependencies).toBeUndefined();
  });

  it('points the controller at the subcharts\' Services and stays valid for the controller\'s schema', () => {
    const sub = values['edge-controller'] as Json;
    const secrets = sub.secrets as Record<string, string>;
    expect(new URL(secrets.databaseUrl!).host).toBe(`${(values.postgresql as Json).fullnameOverride}:5432`);
    expect(new URL(secrets.natsUrl!).host).toBe(`${(values.nats as Json).fullnameOverride}:4222`);
    expect(((values.nats as Json).config as Json).jetstream).toMatchObject({ enabled: true });
    const validate = validator();
    expect(validate(mergeValues(chart.values, sub)), JSON.stringify(validate.errors)).toBe(true);
  });
});

/**
 * helm/edge-controller through the real helm binary: `helm lint`, `helm template` with each
 * option, every rendered object validated against the Kubernetes schemas, values.yaml against
 * values.schema.json, the values without a default required, and what each option promises.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, SERVICE_NAMES } from '@edge/config';
import { CHART_DIR, helm, loadChart, mergeValues, renderChart, renderNotes, renderWith, REPO_ROOT, REQUIRED_VALUES, type K8sObject } from './support/chart.js';
import { k8sSchemaProblems } from './support/k8s-schema.js';
import { allContainers, COMPONENTS, configMapData, deployment, find, get, kekConsumers, networkPolicy, podSpecOf, secretRefs } from './support/objects.js';

const chart = loadChart();
const allTemplates = Object.values(chart.templates).join('\n');

type Json = Record<string, unknown>;

/** Value paths the templates read: `.Values.a.b` directly and through the variables bound to parts of .Values. */
function referencedPaths(): string[] {
  const paths = new Set<string>();
  for (const m of allTemplates.matchAll(/\.Values((?:\.[A-Za-z0-9_]+)+)/g)) paths.add(m[1]!.slice(1));
  // Variables and dict keys the templates bind to a part of .Values (see the templates).
  const aliases: Record<string, string[]> = {
    '\\$svc': SERVICE_NAMES.map((s) => `services.${s}`),
    '\\$gw': ['gateway'],
    '\\$c': ['config'],
    '\\$p': ['snapshots.persistence'],
    '\\$np': ['networkPolicy'],
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

const JOIN_TOKEN = 'f'.repeat(64);
const withRequired = (over: Json = {}) => mergeValues(chart.values, mergeValues(REQUIRED_VALUES, over));

/** The environment a component's main container sees, its Secret references resolved from the chart's Secret. */
function environment(rendered: K8sObject[], c: string): Record<string, string> {
  const secret = get<{ stringData: Record<string, string> }>(rendered, 'Secret', 'edge').stringData;
  const env: Record<string, string> = { ...configMapData(rendered, 'edge') };
  for (const e of podSpecOf(rendered, `edge-${c}`).containers[0]!.env!) env[e.name] = e.valueFrom ? secret[e.valueFrom.secretKeyRef!.key]! : e.value!;
  return env;
}

describe('helm/edge-controller values', () => {
  it('defines every value path the templates read, in values.yaml and in the schema', () => {
    const paths = referencedPaths();
    expect(paths.length).toBeGreaterThan(40);
    expect(paths).toContain('services.pki.grpcPort');
    expect(paths).toContain('networkPolicy.metricsFrom');
    expect(paths.filter((p) => !hasPath(chart.values, p))).toEqual([]);
    expect(paths.filter((p) => !schemaHasPath(chart.schema, p))).toEqual([]);
  });

  it('documents every value of values.yaml in the schema, which accepts it once the required values are given', () => {
    const validate = validator();
    const valid = validate(withRequired());
    expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
    expect(valid).toBe(true);
  });

  it('requires exactly the advertised address and the key-encryption key (no usable default)', () => {
    const validate = validator();
    expect(validate(chart.values)).toBe(false);
    expect([...new Set(validate.errors!.map((e) => e.instancePath))].sort()).toEqual(['/gateway/advertisedAddress', '/secrets', '/secrets/keyEncryptionKey']);
    // An existing Secret carries the key instead.
    expect(validate(mergeValues(chart.values, { gateway: REQUIRED_VALUES.gateway, secrets: { existingSecret: 'mine' } })), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each([
    ['a misspelt key', { gateway: { replica: 3 } }, 'additionalProperties'],
    ['an unknown Service type', { gateway: { service: { type: 'Ingress' } } }, 'enum'],
    ['a gRPC port out of range', { services: { auth: { grpcPort: 0 } } }, 'minimum'],
    ['a NATS URL over http', { secrets: { natsUrl: 'http://nats:4222' } }, 'pattern'],
    ['a subject prefix without its dot', { config: { natsSubjectPrefix: 'edge' } }, 'pattern'],
    ['an admin password shorter than the controller accepts', { secrets: { adminPassword: 'abc' } }, 'minLength'],
    ['an advertised address without port', { gateway: { advertisedAddress: 'edge.example.com' } }, 'pattern'],
    ['a wildcard advertised address', { gateway: { advertisedAddress: '0.0.0.0:443' } }, 'not'],
    ['an IPv6 wildcard advertised address', { gateway: { advertisedAddress: '[::]:443' } }, 'not'],
    ['a spreading rule Kubernetes does not know', { topologySpread: [{ topologyKey: 'kubernetes.io/hostname', maxSkew: 1, whenUnsatisfiable: 'Maybe' }] }, 'enum'],
    ['a snapshot size that is no quantity', { snapshots: { persistence: { size: 'big' } } }, 'pattern'],
  ])('rejects %s', (_what, override, keyword) => {
    const validate = validator();
    expect(validate(withRequired(override))).toBe(false);
    expect(JSON.stringify(validate.errors)).toContain(keyword);
  });
});

describe('helm (the real binary)', () => {
  it('lints the chart strictly once the required values are given', () => {
    const r = helm(['lint', '--strict', CHART_DIR], REQUIRED_VALUES);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('0 chart(s) failed');
  });

  it('refuses to lint or render without the advertised address or the key-encryption key, naming them', () => {
    const template = helm(['template', 'edge', CHART_DIR]);
    expect(template.status).not.toBe(0);
    expect(template.stderr).toContain('gateway.advertisedAddress');
    expect(template.stderr).toContain('secrets.keyEncryptionKey');
    expect(helm(['lint', CHART_DIR]).status).not.toBe(0);
    const noKek = helm(['template', 'edge', CHART_DIR], { gateway: REQUIRED_VALUES.gateway });
    expect(noKek.status).not.toBe(0);
    expect(noKek.stderr).toContain('secrets.keyEncryptionKey');
    expect(noKek.stderr).not.toContain('advertisedAddress');
    const wildcard = helm(['template', 'edge', CHART_DIR], { ...REQUIRED_VALUES, gateway: { advertisedAddress: '0.0.0.0:1280' } });
    expect(wildcard.stderr).toContain('gateway.advertisedAddress');
    expect(renderWith({ gateway: REQUIRED_VALUES.gateway, secrets: { existingSecret: 'mine' } }).length).toBeGreaterThan(20);
  });

  const variants: Array<[string, Json]> = [
    ['the defaults', {}],
    ['autoscaling, disruption budgets, metrics and network policies off', {
      metrics: { enabled: false }, networkPolicy: { enabled: false },
      gateway: { autoscaling: { enabled: false }, podDisruptionBudget: { enabled: false } },
      services: { auth: { autoscaling: { enabled: false }, podDisruptionBudget: { enabled: false } } },
    }],
    ['an existing Secret, a NodePort and a fullnameOverride', { fullnameOverride: 'zt', secrets: { existingSecret: 'mine' }, gateway: { service: { type: 'NodePort', nodePort: 30443 } } }],
    ['ReadWriteMany snapshots, restricted sources and own spreading', {
      snapshots: { persistence: { accessModes: ['ReadWriteMany'], storageClass: 'nfs' } },
      networkPolicy: { gatewayFrom: [{ ipBlock: { cidr: '10.0.0.0/8' } }], metricsFrom: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }] },
      services: { policy: { topologySpreadConstraints: [{ maxSkew: 2, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { 'app.kubernetes.io/component': 'policy' } } }] } },
    }],
    ['no snapshot volume and no spreading', { snapshots: { persistence: { enabled: false } }, topologySpread: [] }],
    ['an existing snapshot claim', { snapshots: { persistence: { existingClaim: 'edge-backups' } } }],
    ['internal mutual TLS', { config: { grpcTls: 'mtls' }, secrets: { grpcJoinToken: JOIN_TOKEN } }],
  ];

  it.each(variants)('renders objects the Kubernetes schemas accept, with %s', async (_what, values) => {
    const objects = renderChart(values);
    expect(objects.length).toBeGreaterThan(20);
    expect(await k8sSchemaProblems(objects)).toEqual([]);
  });

  it('has a schema check that rejects what the API would: a wrong type, an unknown enum value, a misplaced field, an unknown kind', async () => {
    const objects = renderChart();
    const broken = (edit: (d: Json) => void): K8sObject => {
      const d = structuredClone(find(objects, 'Deployment', 'edge-auth')!) as Json;
      edit(d);
      return d as K8sObject;
    };
    const spec = (d: Json) => d.spec as Json & { template: { spec: Json & { containers: Json[] } } };
    const cases: Array<[K8sObject, RegExp]> = [
      [broken((d) => { spec(d).replicas = 'two'; }), /Deployment\/edge-auth: .*replicas must be integer/],
      [broken((d) => { spec(d).template.spec.restartPolicy = 'Sometimes'; }), /Deployment\/edge-auth: .*restartPolicy must be equal to one of the allowed values/],
      [broken((d) => { spec(d).template.spec.topologySpreadConstraints = [{ maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' }]; }), /Deployment\/edge-auth: .*must have required property '?topologyKey'?/],
      // Spreading written one level too high: the API server would drop it silently.
      [broken((d) => { spec(d).topologySpreadConstraints = []; }), /Deployment\/edge-auth: .*'"?topologySpreadConstraints"?' does not exist in type/],
      [broken((d) => { spec(d).template.spec.containers[0]!.envfrom = []; }), /Deployment\/edge-auth: .*'"?envfrom"?' does not exist in type/],
      [{ apiVersion: 'networking.k8s.io/v9', kind: 'NetworkPolicy', metadata: { name: 'x' } }, /NetworkPolicy\/x: no schema for apiVersion networking.k8s.io\/v9/],
    ];
    for (const [object, problem] of cases) {
      const problems = await k8sSchemaProblems([object]);
      expect(problems.join('\n'), String(problem)).toMatch(problem);
    }
  });
});

describe('helm/edge-controller templates', () => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = renderChart();
  });

  it('renders a Deployment, headless Service, HPA and PDB per service, and the gateway behind a TCP LoadBalancer on 443', () => {
    for (const s of SERVICE_NAMES) {
      for (const kind of ['Deployment', 'Service', 'HorizontalPodAutoscaler', 'PodDisruptionBudget']) expect(find(objects, kind, `edge-${s}`), `${kind} edge-${s}`).toBeDefined();
      expect(get<{ spec: { clusterIP: string } }>(objects, 'Service', `edge-${s}`).spec.clusterIP).toBe('None');
    }
    const gw = get<{ spec: { type: string; ports: unknown[] } }>(objects, 'Service', 'edge-gateway');
    expect(gw.spec.type).toBe('LoadBalancer');
    expect(gw.spec.ports).toEqual([{ name: 'https', port: 443, targetPort: 'https', protocol: 'TCP' }]);
    expect(objects.filter((o) => o.kind === 'Ingress')).toEqual([]);
  });

  it('points every gRPC target at the headless Service through the dns resolver, on the port the service listens on', () => {
    const cm = configMapData(objects, 'edge');
    for (const s of SERVICE_NAMES) {
      const port = (chart.values.services as Record<string, { grpcPort: number }>)[s]!.grpcPort;
      expect(cm[`EDGE_${s.toUpperCase()}_GRPC_ADDR`]).toBe(`dns:///edge-${s}:${port}`);
      expect(podSpecOf(objects, `edge-${s}`).containers[0]!.env).toContainEqual({ name: 'EDGE_GRPC_LISTEN_ADDR', value: `0.0.0.0:${port}` });
    }
  });

  it('hands each process only the secrets it uses', () => {
    const secretKeys = (name: string) => Object.keys(secretRefs(podSpecOf(objects, name).containers[0]!)).sort();
    expect(secretKeys('edge-gateway')).toEqual(['EDGE_NATS_URL']);
    expect(secretKeys('edge-auth')).toEqual(['EDGE_ADMIN_PASSWORD', 'EDGE_DATABASE_URL', 'EDGE_KEY_ENCRYPTION_KEY', 'EDGE_NATS_URL']);
    expect(secretKeys('edge-pki')).toEqual(['EDGE_DATABASE_URL', 'EDGE_KEY_ENCRYPTION_KEY', 'EDGE_NATS_URL']);
    expect(secretKeys('edge-policy')).toEqual(['EDGE_DATABASE_URL', 'EDGE_NATS_URL']);
  });

  it('gives every component that seals secrets the same key-encryption key from one Secret, required, in every container', () => {
    const consumers = kekConsumers();
    expect(consumers).toEqual(['auth', 'pki']);
    for (const [values, secret] of [[{}, 'edge'], [{ secrets: { existingSecret: 'mine' } }, 'mine']] as const) {
      const rendered = renderChart(values);
      const refs = COMPONENTS.flatMap((c) => allContainers(rendered, `edge-${c}`).map((k) => ({ c, ref: secretRefs(k).EDGE_KEY_ENCRYPTION_KEY })));
      expect(refs.filter((r) => r.ref).map((r) => r.c).sort()).toEqual([...consumers, ...consumers].sort());
      for (const { ref } of refs.filter((r) => r.ref)) expect(ref).toEqual({ secret, key: 'EDGE_KEY_ENCRYPTION_KEY', optional: false });
    }
    const secret = get<{ stringData: Record<string, string> }>(objects, 'Secret', 'edge');
    expect(secret.stringData.EDGE_KEY_ENCRYPTION_KEY).toBe(REQUIRED_VALUES.secrets.keyEncryptionKey);
  });

  it('runs `migrate` in an init container before each service, and not when disabled', () => {
    for (const s of SERVICE_NAMES) expect(podSpecOf(objects, `edge-${s}`).initContainers?.[0]?.args).toEqual(['migrate']);
    expect(podSpecOf(renderChart({ migrations: { enabled: false } }), 'edge-auth').initContainers).toBeUndefined();
  });

  it('leaves replicas to the HPA when autoscaling, and renders neither HPA nor PDB when switched off', () => {
    expect(deployment(objects, 'edge-policy').spec!.replicas).toBeUndefined();
    const off = renderChart({ services: { policy: { replicas: 3, autoscaling: { enabled: false }, podDisruptionBudget: { enabled: false } } } });
    expect(deployment(off, 'edge-policy').spec!.replicas).toBe(3);
    expect(find(off, 'HorizontalPodAutoscaler', 'edge-policy')).toBeUndefined();
    expect(find(off, 'PodDisruptionBudget', 'edge-policy')).toBeUndefined();
    expect(find(off, 'HorizontalPodAutoscaler', 'edge-auth')).toBeDefined();
  });

  it('uses an existing Secret instead of rendering one', () => {
    const ext = renderChart({ secrets: { existingSecret: 'my-edge-secrets' } });
    expect(ext.filter((o) => o.kind === 'Secret')).toEqual([]);
    const refs = Object.values(secretRefs(podSpecOf(ext, 'edge-auth').containers[0]!));
    expect(refs.length).toBe(4);
    expect(refs.every((r) => r.secret === 'my-edge-secrets')).toBe(true);
  });

  it('pins a NodePort only on a NodePort or LoadBalancer Service', () => {
    type Svc = { spec: Json & { ports: Array<{ nodePort?: number }> } };
    expect(get<Svc>(renderChart({ gateway: { service: { type: 'NodePort', nodePort: 30443 } } }), 'Service', 'edge-gateway').spec.ports[0]!.nodePort).toBe(30443);
    const spec = get<Svc>(renderChart({ gateway: { service: { type: 'ClusterIP', nodePort: 30443 } } }), 'Service', 'edge-gateway').spec;
    expect(spec.ports[0]!.nodePort).toBeUndefined();
    expect(spec.externalTrafficPolicy).toBeUndefined();
  });

  it('runs every container as non-root on a read-only root filesystem, with /data and /tmp writable', () => {
    for (const c of COMPONENTS) {
      const spec = podSpecOf(objects, `edge-${c}`);
      expect(spec.securityContext!.runAsNonRoot).toBe(true);
      for (const k of spec.containers) {
        expect(k.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
        const mounts = k.volumeMounts!.map((m) => m.mountPath).sort();
        expect(mounts).toEqual(c === 'session' ? ['/data', '/data/snapshots', '/tmp'] : ['/data', '/tmp']);
      }
    }
  });

  it('serves /metrics on the same port in every pod, exposed and annotated for Prometheus, unless disabled', () => {
    expect(configMapData(objects, 'edge').EDGE_METRICS_ADDR).toBe('0.0.0.0:9464');
    for (const c of COMPONENTS) {
      const d = deployment(objects, `edge-${c}`).spec!.template;
      expect(d.metadata!.annotations).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9464', 'prometheus.io/path': '/metrics' });
      expect(d.spec!.containers[0]!.ports).toContainEqual({ name: 'metrics', containerPort: 9464, protocol: 'TCP' });
    }
    const off = renderChart({ metrics: { enabled: false }, services: { auth: { podAnnotations: { team: 'edge' } } } });
    expect(configMapData(off, 'edge').EDGE_METRICS_ADDR).toBeUndefined();
    const auth = deployment(off, 'edge-auth').spec!.template;
    expect(auth.metadata!.annotations).toEqual({ team: 'edge' });
    expect(auth.spec!.containers[0]!.ports!.map((p) => p.name)).toEqual(['grpc']);
    expect(deployment(off, 'edge-policy').spec!.template.metadata!.annotations).toBeUndefined();
  });

  /** The environment a component's main container sees: the ConfigMap, then its own env (Secret keys resolved). */
  it('gives each process an environment libs/config accepts, naming only variables it reads, and one advertised address', () => {
    const known = new Set(readFileSync(join(REPO_ROOT, 'libs/config/src/index.ts'), 'utf8').match(/EDGE_[A-Z0-9_]+(?=:)/g));
    for (const c of COMPONENTS) {
      const env = environment(objects, c);
      expect(Object.keys(env).filter((k) => !known.has(k)), c).toEqual([]);
      const config = loadConfig(env);
      expect(config.dataDir).toBe('/data');
      expect(config.metrics.addr).toBe('0.0.0.0:9464');
      expect(config.grpc.targets.identity).toBe('dns:///edge-identity:50053');
      expect(config.http.addr).toBe('0.0.0.0:1280');
      // pki signs it into enrollment and network JWTs, auth into TOTP URLs, the gateway into API URLs.
      expect(config.http.advertisedAddress).toBe('edge.example.com:443');
      if (c !== 'gateway') expect(config.database.url).toBe('postgres://edge@edge-postgresql:5432/edge');
      if (kekConsumers().includes(c)) expect(config.keyEncryptionKey).toBe(REQUIRED_VALUES.secrets.keyEncryptionKey);
    }
  });

  it('applies fullnameOverride to every name and reference', () => {
    const named = renderChart({ fullnameOverride: 'zt' });
    expect(named.every((o) => o.metadata.name === 'zt' || o.metadata.name.startsWith('zt-'))).toBe(true);
    expect(configMapData(named, 'zt').EDGE_AUTH_GRPC_ADDR).toBe('dns:///zt-auth:50051');
    expect(podSpecOf(named, 'zt-session').volumes).toContainEqual({ name: 'snapshots', persistentVolumeClaim: { claimName: 'zt-snapshots' } });
  });

  it('prints in NOTES.txt how many Postgres connections the services may open at most', () => {
    // 5 services × 6 replicas (the autoscalers' maximum) × a pool of 10.
    expect(renderNotes()).toContain('Postgres connections: up to 300 (10 per service pod');
    const fixed = renderNotes({ config: { databasePoolSize: 4 }, services: { auth: { autoscaling: { enabled: false }, replicas: 3 } } });
    expect(fixed).toContain(`up to ${4 * (4 * 6 + 3)} (4 per service pod`);
    expect(renderNotes()).toContain('https://edge.example.com:443');
  });
});

describe('internal mutual TLS (config.grpcTls)', () => {
  const mtls = { config: { grpcTls: 'mtls' }, secrets: { grpcJoinToken: JOIN_TOKEN } };
  const probes = (objects: K8sObject[], s: string) => {
    const c = podSpecOf(objects, `edge-${s}`).containers[0]!;
    return [c.startupProbe, c.readinessProbe, c.livenessProbe];
  };

  it('is off by default: plaintext gRPC, kubelet gRPC probes, no join token anywhere', () => {
    const objects = renderChart();
    expect(configMapData(objects, 'edge').EDGE_GRPC_TLS).toBe('off');
    for (const c of COMPONENTS) for (const k of allContainers(objects, `edge-${c}`)) expect(secretRefs(k).EDGE_GRPC_JOIN_TOKEN, c).toBeUndefined();
    for (const s of SERVICE_NAMES) for (const p of probes(objects, s)) expect(p!.grpc).toEqual({ port: (chart.values.services as Record<string, { grpcPort: number }>)[s]!.grpcPort });
    expect(get<{ stringData: Json }>(objects, 'Secret', 'edge').stringData).not.toHaveProperty('EDGE_GRPC_JOIN_TOKEN');
  });

  it('gives every process the join token from the Secret, required, and an environment libs/config accepts as mtls', () => {
    const objects = renderChart(mtls);
    expect(configMapData(objects, 'edge').EDGE_GRPC_TLS).toBe('mtls');
    expect(get<{ stringData: Json }>(objects, 'Secret', 'edge').stringData.EDGE_GRPC_JOIN_TOKEN).toBe(JOIN_TOKEN);
    for (const c of COMPONENTS) {
      const [main, ...others] = [podSpecOf(objects, `edge-${c}`).containers[0]!, ...(podSpecOf(objects, `edge-${c}`).initContainers ?? [])];
      expect(secretRefs(main!).EDGE_GRPC_JOIN_TOKEN, c).toEqual({ secret: 'edge', key: 'EDGE_GRPC_JOIN_TOKEN', optional: false });
      // The migration step makes no gRPC call.
      for (const k of others) expect(secretRefs(k).EDGE_GRPC_JOIN_TOKEN).toBeUndefined();
      expect(loadConfig(environment(objects, c)).grpc.tls, c).toEqual({ mode: 'mtls', joinToken: JOIN_TOKEN });
    }
    const ext = renderChart({ ...mtls, secrets: { existingSecret: 'mine' } });
    expect(secretRefs(podSpecOf(ext, 'edge-gateway').containers[0]!).EDGE_GRPC_JOIN_TOKEN).toEqual({ secret: 'mine', key: 'EDGE_GRPC_JOIN_TOKEN', optional: false });
  });

  it('probes each service\'s gRPC port over TCP, which the kubelet can do without a certificate', () => {
    const objects = renderChart(mtls);
    for (const s of SERVICE_NAMES) {
      const port = (chart.values.services as Record<string, { grpcPort: number }>)[s]!.grpcPort;
      for (const p of probes(objects, s)) {
        expect(p!.tcpSocket, s).toEqual({ port });
        expect(p!.grpc, s).toBeUndefined();
      }
    }
  });

  it('requires a join token of 32 characters or more with mtls, unless an existing Secret carries it', () => {
    const validate = validator();
    expect(validate(withRequired({ config: { grpcTls: 'mtls' } }))).toBe(false);
    expect(JSON.stringify(validate.errors)).toContain('/secrets/grpcJoinToken');
    expect(validate(withRequired({ config: { grpcTls: 'mtls' }, secrets: { grpcJoinToken: 'too-short' } }))).toBe(false);
    expect(validate(withRequired({ config: { grpcTls: 'mtls' }, secrets: { existingSecret: 'mine' } })), JSON.stringify(validate.errors)).toBe(true);
    // YAML reads a bare off as false.
    expect(validate(withRequired({ config: { grpcTls: false } }))).toBe(false);
    const missing = helm(['template', 'edge', CHART_DIR], mergeValues(REQUIRED_VALUES, { config: { grpcTls: 'mtls' } }) as Json);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('secrets.grpcJoinToken');
  });
});

describe('snapshots', () => {
  const claimOf = (objects: K8sObject[]) => podSpecOf(objects, 'edge-session').volumes!.find((v) => v.name === 'snapshots')?.persistentVolumeClaim?.claimName;
  const mountsOf = (objects: K8sObject[], c: string) => podSpecOf(objects, `edge-${c}`).containers[0]!.volumeMounts!.map((m) => m.mountPath);

  it('writes them to a claim mounted at /data/snapshots in the session pods only, kept on uninstall', () => {
    const objects = renderChart();
    const pvc = get<{ metadata: { annotations: Json }; spec: { accessModes: string[]; resources: { requests: { storage: string } } } }>(objects, 'PersistentVolumeClaim', 'edge-snapshots');
    expect(pvc.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
    expect(pvc.spec).toMatchObject({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } });
    expect(claimOf(objects)).toBe('edge-snapshots');
    // pg_dump runs in the session service and writes <EDGE_DATA_DIR>/snapshots.
    expect(configMapData(objects, 'edge').EDGE_DATA_DIR).toBe('/data');
    expect(mountsOf(objects, 'session')).toContain('/data/snapshots');
    for (const c of COMPONENTS.filter((x) => x !== 'session')) expect(mountsOf(objects, c)).not.toContain('/data/snapshots');
  });

  it('keeps the session pods on one node for a volume only one node can attach, and spreads them with ReadWriteMany', () => {
    const together = podSpecOf(renderChart(), 'edge-session').affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    expect(together).toEqual([{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'edge-controller', 'app.kubernetes.io/instance': 'edge', 'app.kubernetes.io/component': 'session' } } }]);
    const shared = renderChart({ snapshots: { persistence: { accessModes: ['ReadWriteMany'] } } });
    expect(podSpecOf(shared, 'edge-session').affinity).toBeUndefined();
    // A component's own affinity is kept beside the rule.
    const own = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }] } } };
    const affinity = podSpecOf(renderChart({ services: { session: { affinity: own } } }), 'edge-session').affinity!;
    expect(affinity.nodeAffinity).toEqual(own.nodeAffinity);
    expect(affinity.podAffinity).toBeDefined();
  });

  it('uses an existing claim instead of rendering one, and the data volume when switched off', () => {
    const existing = renderChart({ snapshots: { persistence: { existingClaim: 'edge-backups' } } });
    expect(existing.filter((o) => o.kind === 'PersistentVolumeClaim')).toEqual([]);
    expect(claimOf(existing)).toBe('edge-backups');
    const off = renderChart({ snapshots: { persistence: { enabled: false } } });
    expect(off.filter((o) => o.kind === 'PersistentVolumeClaim')).toEqual([]);
    expect(claimOf(off)).toBeUndefined();
    expect(mountsOf(off, 'session')).not.toContain('/data/snapshots');
  });
});

describe('network policies', () => {
  const release = { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'edge-controller', 'app.kubernetes.io/instance': 'edge' } } };

  it('admits each service\'s gRPC port only from this release\'s pods (the gateway and the other services)', () => {
    const objects = renderChart();
    for (const s of SERVICE_NAMES) {
      const np = networkPolicy(objects, `edge-${s}`);
      expect(np.podSelector?.matchLabels).toEqual(deployment(objects, `edge-${s}`).spec!.selector.matchLabels);
      expect(np.policyTypes).toEqual(['Ingress']);
      const grpc = np.ingress!.filter((r) => r.ports!.some((p) => p.port === 'grpc'));
      expect(grpc).toEqual([{ from: [release], ports: [{ port: 'grpc', protocol: 'TCP' }] }]);
      // The named port is the one the container declares.
      expect(podSpecOf(objects, `edge-${s}`).containers[0]!.ports!.map((p) => p.name)).toContain('grpc');
    }
    // Every caller is selected: the gateway's pods and each service's carry the release's labels.
    for (const c of COMPONENTS) expect(deployment(objects, `edge-${c}`).spec!.template.metadata!.labels).toMatchObject(release.podSelector.matchLabels);
  });

  it('admits HTTPS to the gateway and /metrics from the configured sources, every source by default', () => {
    const open = renderChart();
    expect(networkPolicy(open, 'edge-gateway').ingress).toEqual([{ ports: [{ port: 'https', protocol: 'TCP' }] }, { ports: [{ port: 'metrics', protocol: 'TCP' }] }]);
    const monitoring = [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }];
    const lan = [{ ipBlock: { cidr: '10.0.0.0/8' } }];
    const closed = renderChart({ networkPolicy: { gatewayFrom: lan, metricsFrom: monitoring } });
    expect(networkPolicy(closed, 'edge-gateway').ingress).toEqual([{ from: lan, ports: [{ port: 'https', protocol: 'TCP' }] }, { from: monitoring, ports: [{ port: 'metrics', protocol: 'TCP' }] }]);
    expect(networkPolicy(closed, 'edge-identity').ingress![1]).toEqual({ from: monitoring, ports: [{ port: 'metrics', protocol: 'TCP' }] });
    expect(networkPolicy(renderChart({ metrics: { enabled: false } }), 'edge-identity').ingress).toEqual([{ from: [release], ports: [{ port: 'grpc', protocol: 'TCP' }] }]);
  });

  it('renders none when disabled', () => {
    expect(renderChart({ networkPolicy: { enabled: false } }).filter((o) => o.kind === 'NetworkPolicy')).toEqual([]);
    expect(renderChart().filter((o) => o.kind === 'NetworkPolicy').map((o) => o.metadata.name).sort()).toEqual(COMPONENTS.map((c) => `edge-${c}`).sort());
  });
});

describe('spreading', () => {
  it('spreads every component\'s pods over nodes and zones by default, as a preference, selecting its own pods', () => {
    const objects = renderChart();
    for (const c of COMPONENTS) {
      const d = deployment(objects, `edge-${c}`);
      expect(d.spec!.template.spec!.topologySpreadConstraints).toEqual(['kubernetes.io/hostname', 'topology.kubernetes.io/zone'].map((topologyKey) => ({
        topologyKey, maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: d.spec!.selector.matchLabels },
      })));
    }
  });

  it('takes a component\'s own constraints instead, and renders none for an empty list', () => {
    const own = [{ maxSkew: 2, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { 'app.kubernetes.io/component': 'policy' } } }];
    const objects = renderChart({ services: { policy: { topologySpreadConstraints: own } } });
    expect(podSpecOf(objects, 'edge-policy').topologySpreadConstraints).toEqual(own);
    expect(podSpecOf(objects, 'edge-auth').topologySpreadConstraints).toHaveLength(2);
    expect(podSpecOf(renderChart({ topologySpread: [] }), 'edge-auth').topologySpreadConstraints).toBeUndefined();
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

  it('points the controller at the subcharts\' Services and stays valid for the controller\'s schema once the required values are given', () => {
    const sub = values['edge-controller'] as Json;
    const secrets = sub.secrets as Record<string, string>;
    expect(new URL(secrets.databaseUrl!).host).toBe(`${(values.postgresql as Json).fullnameOverride}:5432`);
    expect(new URL(secrets.natsUrl!).host).toBe(`${(values.nats as Json).fullnameOverride}:4222`);
    expect(((values.nats as Json).config as Json).jetstream).toMatchObject({ enabled: true });
    // The stack leaves the required values empty for the operator to give.
    const validate = validator();
    expect(validate(mergeValues(chart.values, sub))).toBe(false);
    const given = mergeValues(sub, REQUIRED_VALUES) as Json;
    expect(validate(mergeValues(chart.values, given)), JSON.stringify(validate.errors)).toBe(true);
    expect(renderWith(given).length).toBeGreaterThan(20);
  });
});

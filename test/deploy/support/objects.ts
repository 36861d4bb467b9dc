/**
 * Typed access to rendered objects (the kubernetes-models interfaces), and what the repository
 * says each component needs from them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { SERVICE_NAMES } from '@edge/config';
import { REPO_ROOT, type K8sObject } from './chart.js';

export const COMPONENTS = [...SERVICE_NAMES, 'gateway'] as const;

export const find = (objects: K8sObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);

/** The object of that kind and name; throws when it was not rendered. */
export function get<T>(objects: K8sObject[], kind: string, name: string): T {
  const o = find(objects, kind, name);
  if (!o) throw new Error(`${kind}/${name} was not rendered`);
  return o as unknown as T;
}

export const deployment = (objects: K8sObject[], name: string) => get<IDeployment>(objects, 'Deployment', name);
export const podSpecOf = (objects: K8sObject[], name: string): IPodSpec => deployment(objects, name).spec!.template.spec!;
export const configMapData = (objects: K8sObject[], name: string) => get<IConfigMap>(objects, 'ConfigMap', name).data ?? {};
export const networkPolicy = (objects: K8sObject[], name: string) => get<INetworkPolicy>(objects, 'NetworkPolicy', name).spec!;

/** Every container of a Deployment's pods, init containers included. */
export function allContainers(objects: K8sObject[], name: string): IContainer[] {
  const spec = podSpecOf(objects, name);
  return [...(spec.initContainers ?? []), ...spec.containers];
}

/** The variables a container takes from Secrets: name → {secret, key, optional}. */
export function secretRefs(c: IContainer): Record<string, { secret: string; key: string; optional?: boolean }> {
  const refs: Record<string, { secret: string; key: string; optional?: boolean }> = {};
  for (const e of c.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef;
    if (ref) refs[e.name] = { secret: ref.name!, key: ref.key, optional: ref.optional };
  }
  return refs;
}

/**
 * The components that seal secrets at rest under the key-encryption key: those whose package
 * depends on @edge/key-encryption. Read from the repository, so a new user of it is covered.
 */
export function kekConsumers(): string[] {
  return COMPONENTS.filter((c) => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, `services/${c}/package.json`), 'utf8')) as { dependencies?: Record<string, string> };
    return '@edge/key-encryption' in (pkg.dependencies ?? {});
  });
}

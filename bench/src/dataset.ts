/**
 * The benchmark's network, in the shape OpenZiti's "many services" tests use: identities and
 * services split into as many groups as there are policies of each kind, so that each identity
 * is granted one group of services (about 100) through one Dial policy and reaches the edge
 * routers of its group through an edge router policy, which the group's service edge router
 * policy also grants to its services.
 */
import type { Dataset } from '@edge/launcher';

export interface Scale {
  services: number;
  identities: number;
  edgeRouters: number;
  /** Policies of each kind; also the number of identity and service groups. */
  policies: number;
  /** Identities given a password (each costs one scrypt hash at import). */
  logins: number;
}

export const SCALES: Record<'default' | 'small', Scale> = {
  default: { services: 10_000, identities: 16_000, edgeRouters: 100, policies: 100, logins: 200 },
  small: { services: 1_000, identities: 1_600, edgeRouters: 10, policies: 10, logins: 40 },
};

export const PASSWORD = 'bench-password-1';

/** What the scenarios need to know about the generated network. */
export interface Network {
  dataset: Dataset;
  /** Names of the identities with a password, and each one's group. */
  logins: Array<{ name: string; group: number }>;
  /** Ids of the services of each group. */
  servicesByGroup: string[][];
  groups: number;
}

const pad = (n: number) => String(n).padStart(5, '0');
/** The edge routers a group reaches: an attribute shared by a tenth of the routers. */
const routerAttr = (group: number, scale: Scale) => `er-${group % Math.max(1, Math.floor(scale.edgeRouters / 10))}`;

export function buildNetwork(scale: Scale): Network {
  const groups = scale.policies;
  const services = Array.from({ length: scale.services }, (_, i) => ({
    id: `bench-svc-${pad(i)}`, name: `bench-service-${pad(i)}`, roleAttributes: [`svc-group-${i % groups}`, `svc-${i % 7}`],
  }));
  const identities = Array.from({ length: scale.identities }, (_, i) => ({
    name: `bench-identity-${pad(i)}`, roleAttributes: [`group-${i % groups}`, `region-${i % 5}`],
    ...(i < scale.logins ? { password: PASSWORD } : {}),
  }));
  const edgeRouters = Array.from({ length: scale.edgeRouters }, (_, i) => ({
    name: `bench-er-${pad(i)}`, roleAttributes: [`er-${i % Math.max(1, Math.floor(scale.edgeRouters / 10))}`],
  }));
  const range = Array.from({ length: groups }, (_, g) => g);
  const dataset: Dataset = {
    identities, services, edgeRouters,
    servicePolicies: range.map((g) => ({
      name: `bench-dial-${g}`, type: 'Dial' as const, semantic: 'AnyOf' as const, identityRoles: [`#group-${g}`], serviceRoles: [`#svc-group-${g}`],
    })),
    edgeRouterPolicies: range.map((g) => ({ name: `bench-erp-${g}`, semantic: 'AnyOf' as const, identityRoles: [`#group-${g}`], edgeRouterRoles: [`#${routerAttr(g, scale)}`] })),
    serviceEdgeRouterPolicies: range.map((g) => ({
      name: `bench-serp-${g}`, semantic: 'AnyOf' as const, serviceRoles: [`#svc-group-${g}`], edgeRouterRoles: [`#${routerAttr(g, scale)}`],
    })),
  };
  const servicesByGroup = range.map(() => [] as string[]);
  services.forEach((s, i) => servicesByGroup[i % groups]!.push(s.id));
  const logins = identities.slice(0, scale.logins).map((x, i) => ({ name: x.name, group: i % groups }));
  return { dataset, logins, servicesByGroup, groups };
}

/**
 * The scenarios: the requests SDKs and operators send most, each built against the generated
 * network (random caller, random granted service, random filter), and the time a policy change
 * takes to reach a client's service list.
 */
import { createHttpClient, type HttpClient } from '@edge/testing';
import type { Network } from './dataset.js';
import { PASSWORD } from './dataset.js';
import { ADMIN } from './controller.js';
import type { Request } from './load.js';

const C = '/edge/client/v1';
const M = '/edge/management/v1';
const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;

/** A logged-in client: its API session token, identity and group. */
export interface Client {
  token: string;
  identityId: string;
  group: number;
}

/** What an SDK reports of itself at every login (the fields the C SDK fills in). */
const SDK_ENV_INFO = { arch: 'x86_64', os: 'Linux', osRelease: '6.1.0-28-amd64', osVersion: '#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1', hostname: 'bench-host', domain: '' };
const SDK_INFO = { type: 'ziti-sdk-c', version: '1.18.7', revision: 'abc980e', branch: 'HEAD', appId: 'bench', appVersion: '1.0.0' };

export interface Scenario {
  name: string;
  description: string;
  next: () => Request;
}

async function login(http: HttpClient, base: string, username: string, password: string): Promise<{ token: string; identityId: string }> {
  const r = await http.post(`${base}/authenticate?method=password`, { body: { username, password } });
  if (r.status !== 200) throw new Error(`login of ${username} failed: ${r.status} ${r.text.slice(0, 300)}`);
  return { token: r.body.data.token as string, identityId: r.body.data.identity.id as string };
}

/** Logs in the admin and every identity with a password, a few at a time. */
export async function logInEveryone(url: string, network: Network): Promise<{ admin: string; clients: Client[] }> {
  const http = createHttpClient({ baseUrl: url });
  try {
    const admin = (await login(http, M, ADMIN.username, ADMIN.password)).token;
    const clients: Client[] = [];
    for (let i = 0; i < network.logins.length; i += 8) {
      clients.push(...await Promise.all(network.logins.slice(i, i + 8).map(async (l) => ({ ...await login(http, C, l.name, PASSWORD), group: l.group }))));
    }
    return { admin, clients };
  } finally {
    http.close();
  }
}

export function scenarios(network: Network, admin: string, clients: readonly Client[]): Scenario[] {
  // What an SDK sends with each request: its session, and the encodings its HTTP client decodes
  // (the C SDK's sends `gzip, deflate`, Go's `gzip`).
  const session = (c: Client) => ({ 'zt-session': c.token, 'accept-encoding': 'gzip, deflate' });
  return [
    {
      name: 'authenticate',
      description: 'client password login (one scrypt verification and a new API session each)',
      next: () => ({ method: 'POST', path: `${C}/authenticate?method=password`, body: { username: pick(network.logins).name, password: PASSWORD } }),
    },
    {
      name: 'authenticate-sdk',
      description: 'client password login as the C SDK sends it (its environment, recorded on the identity, and config types by name)',
      next: () => ({
        method: 'POST', path: `${C}/authenticate?method=password`,
        body: { username: pick(network.logins).name, password: PASSWORD, envInfo: SDK_ENV_INFO, sdkInfo: SDK_INFO, configTypes: ['intercept.v1', 'host.v1'] },
      }),
    },
    {
      name: 'current-identity',
      description: 'client GET /current-identity',
      next: () => ({ method: 'GET', path: `${C}/current-identity`, headers: session(pick(clients)) }),
    },
    {
      name: 'client-services',
      description: 'client GET /services?limit=500 (policy evaluation, ~100 services granted)',
      next: () => ({ method: 'GET', path: `${C}/services?limit=500`, headers: session(pick(clients)) }),
    },
    {
      name: 'service-updates',
      description: 'client GET /current-api-session/service-updates (the marker SDKs poll; digest of ~100 granted services)',
      next: () => ({ method: 'GET', path: `${C}/current-api-session/service-updates`, headers: session(pick(clients)) }),
    },
    {
      name: 'create-session',
      description: 'client POST /sessions (Dial) for a granted service',
      next: () => {
        const c = pick(clients);
        return { method: 'POST', path: `${C}/sessions`, headers: session(c), body: { serviceId: pick(network.servicesByGroup[c.group]!), type: 'Dial' } };
      },
    },
    {
      name: 'management-identities',
      description: 'management GET /identities with a filter over name and role attributes',
      next: () => {
        const filter = `name contains "bench-identity-0${Math.floor(Math.random() * 10)}" and anyOf(roleAttributes) = "group-${Math.floor(Math.random() * network.groups)}" sort by name limit 50`;
        return { method: 'GET', path: `${M}/identities?filter=${encodeURIComponent(filter)}`, headers: { 'zt-session': admin } };
      },
    },
  ];
}

export interface PropagationResult {
  rounds: number;
  errors: number;
  p50Ms: number;
  maxMs: number;
  samplesMs: number[];
}

/**
 * Each round grants one client a service of another group with a new Dial policy (`@id` roles)
 * and times, from just before the policy is created, until the client's service list shows it.
 */
export async function policyPropagation(url: string, network: Network, admin: string, client: Client, rounds: number): Promise<PropagationResult> {
  const http = createHttpClient({ baseUrl: url });
  const samples: number[] = [];
  let errors = 0;
  try {
    for (let r = 0; r < rounds; r++) {
      const serviceId = network.servicesByGroup[(client.group + 1 + r) % network.groups]![r]!;
      const start = performance.now();
      const created = await http.post(`${M}/service-policies`, {
        session: admin,
        body: { name: `bench-propagation-${r}`, type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${client.identityId}`], serviceRoles: [`@${serviceId}`] },
      });
      if (created.status !== 201) {
        errors++;
        continue;
      }
      const filter = encodeURIComponent(`id = "${serviceId}"`);
      for (;;) {
        const seen = await http.get(`${C}/services?filter=${filter}`, { session: client.token });
        if (seen.status !== 200) errors++;
        if (seen.status === 200 && seen.body.data.length === 1) break;
        if (performance.now() - start > 30_000) {
          errors++;
          break;
        }
      }
      samples.push(Math.round((performance.now() - start) * 10) / 10);
      const removed = await http.delete(`${M}/service-policies/${created.body.data.id}`, { session: admin });
      if (removed.status !== 200) errors++;
    }
  } finally {
    http.close();
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const median = sorted.length === 0 ? 0 : sorted.length % 2 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const p50Ms = Math.round(median * 10) / 10;
  return { rounds, errors, p50Ms, maxMs: sorted.at(-1) ?? 0, samplesMs: samples };
}

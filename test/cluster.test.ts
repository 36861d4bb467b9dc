import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_NAMES } from '@edge/config';
import { createHttpClient, freePortBlock, loadSpecValidator, type HttpClient } from '@edge/testing';
import { cleanupPrefix } from './support/cleanup.js';
import { clusterEnv, stopLauncher } from './support/cluster-env.js';
import { freePort, uniquePrefix } from './support/infra.js';
import { sampleSum, scrape } from './support/metrics.js';

const launcher = fileURLToPath(new URL('../deploy/launcher/dist/main.js', import.meta.url));
const prefix = uniquePrefix();
let proc: ChildProcess;
let http: HttpClient;
let output = '';
let metricsBase = 0;
let readyProbe = 0;

/** The pid of the launcher's child running `script` (a path fragment), from /proc. */
function childPid(parent: number, script: string): number | undefined {
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[1]);
      if (ppid === parent && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(script)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

async function until<T>(fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`cluster not ready: ${String(last)}\n${output.slice(-3000)}`);
}

beforeAll(async () => {
  const port = await freePort();
  // gRPC ports span base … base+49; metrics endpoints take base+100 onwards (about 50).
  const basePort = await freePortBlock(160);
  metricsBase = basePort + 100;
  proc = spawn(process.execPath, [launcher, 'cluster'], {
    env: clusterEnv('cluster', { httpPort: port, basePort, prefix }, {
      EDGE_METRICS_ADDR: `127.0.0.1:${metricsBase}`,
      EDGE_REPLICAS_IDENTITY: '2',
      EDGE_REPLICAS_AUTH: '2',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d) => (output += d));
  proc.stderr!.on('data', (d) => (output += d));
  const base = `https://127.0.0.1:${port}`;
  await until(async () => (output.includes('edge controller ready at') ? true : undefined), 120_000);
  // Ready means every service answers: an unknown session token is a 401 from the auth service
  // at once (the gateway alone would answer 503), and the CA comes from the pki service.
  const bare = createHttpClient({ baseUrl: base });
  readyProbe = (await bare.get('/edge/client/v1/current-identity', { skipValidation: true, headers: { 'zt-session': 'probe' } })).status;
  const ca = (await bare.get('/.well-known/est/cacerts')).text;
  bare.close();
  expect(ca.length).toBeGreaterThan(100);
  http = createHttpClient({ baseUrl: base, validator: loadSpecValidator() });
});

afterAll(async () => {
  http?.close();
  await stopLauncher(proc);
  await cleanupPrefix(prefix);
});

describe('npm run start:cluster (a process per service, replicas balanced)', () => {
  it('says it is ready only once every service answers, and where the admin password comes from', () => {
    expect(readyProbe).toBe(401);
    expect(output).toContain('admin "admin", password from EDGE_ADMIN_PASSWORD');
  });

  it('serves login and identity CRUD through replicated services', async () => {
    const login = await http.post('/edge/management/v1/authenticate?method=password', { body: { username: 'admin', password: 'cluster-admin-pw' }, expectStatus: 200 });
    const token = login.body.data.token;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await http.post('/edge/management/v1/identities', { body: { name: `cl-${i}`, type: 'User', isAdmin: false }, session: token, expectStatus: 201 });
      ids.push(r.body.data.id);
    }
    for (const id of ids) await http.get(`/edge/management/v1/identities/${id}`, { session: token, expectStatus: 200 });
    const list = await http.get('/edge/management/v1/identities?limit=100', { session: token, expectStatus: 200 });
    expect(list.body.meta.pagination.totalCount).toBe(7);
    await http.delete('/edge/client/v1/current-api-session', { session: token, expectStatus: 200 });
    expect((await http.get('/edge/client/v1/current-identity', { session: token })).status).toBe(401);
  });

  it('serves /metrics from every process, with the requests above in the histograms', async () => {
    // The gateway on the first port; service n's replica r on first + 1 + 10·n + r (as the launcher assigns).
    const gateway = await scrape(`127.0.0.1:${metricsBase}`);
    expect(sampleSum(gateway, 'edge_http_server_request_duration_seconds_count', { method: 'POST', route: '/edge/management/v1/identities', status_code: '201' })).toBe(6);
    expect(sampleSum(gateway, 'edge_authentications_total', { method: 'password', result: 'success' })).toBe(1);
    expect(sampleSum(gateway, 'edge_build_info', { node_version: process.version })).toBe(1);
    const replicas: Record<string, number> = { auth: 2, identity: 2 };
    let identityCalls = 0;
    for (const [n, service] of SERVICE_NAMES.entries()) {
      for (let r = 0; r < (replicas[service] ?? 1); r++) {
        const text = await scrape(`127.0.0.1:${metricsBase + 1 + 10 * n + r}`);
        expect(sampleSum(text, 'process_cpu_user_seconds_total'), `${service}-${r}`).toBeGreaterThan(0);
        expect(sampleSum(text, 'edge_build_info', { node_version: process.version }), `${service}-${r}`).toBe(1);
        if (service === 'identity') identityCalls += sampleSum(text, 'edge_grpc_server_handling_seconds_count', { grpc_service: 'edge.identity.v1.IdentityService', grpc_code: 'OK' });
      }
    }
    // 6 creates, 6 reads and a list went through the gateway to the two identity replicas.
    expect(identityCalls).toBeGreaterThanOrEqual(13);
  });

  it('restarts a service killed under load, and the gateway uses it again within seconds', async () => {
    const token = (await http.post('/edge/management/v1/authenticate?method=password', { body: { username: 'admin', password: 'cluster-admin-pw' }, expectStatus: 200 })).body.data.token;
    const pid = childPid(proc.pid!, 'services/policy/dist/main.js');
    expect(pid).toBeDefined();
    // Load while it goes: service lists need the policy service.
    let stop = false;
    const statuses: number[] = [];
    const load = (async () => {
      while (!stop) statuses.push((await http.get('/edge/management/v1/services?limit=5', { session: token, skipValidation: true })).status);
    })();
    await new Promise((r) => setTimeout(r, 300));
    const killedAt = Date.now();
    process.kill(pid!, 'SIGKILL');
    await until(async () => {
      const again = childPid(proc.pid!, 'services/policy/dist/main.js');
      if (again === undefined || again === pid) return undefined;
      const r = await http.get('/edge/management/v1/services?limit=5', { session: token });
      return r.status === 200 ? true : undefined;
    }, 20_000);
    const backMs = Date.now() - killedAt;
    stop = true;
    await load;
    process.stdout.write(`policy service killed with SIGKILL: answering again after ${backMs} ms; statuses during the outage: ${JSON.stringify(countBy(statuses))}\n`);
    expect(backMs).toBeLessThan(10_000);
    expect(output).toMatch(/policy-0 exited \(SIGKILL\); restarting in \d+ ms/);
    // The outage is answered honestly: 200 or 503 UNAVAILABLE, never a 500.
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
  }, 40_000);

  it('stops every process on SIGTERM, restarting none', async () => {
    const children = ['gateway', 'auth', 'pki', 'identity', 'policy', 'session'].map((s) => childPid(proc.pid!, `services/${s}/dist/main.js`));
    expect(children.every((c) => c !== undefined)).toBe(true);
    const before = output.length;
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const pid of children) expect(() => process.kill(pid!, 0), `pid ${pid}`).toThrow();
    expect(output.slice(before)).not.toContain('restarting in');
  });
});

function countBy(values: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

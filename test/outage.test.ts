/**
 * The controller when Postgres or NATS goes away: honest 503 UNAVAILABLE answers within a couple
 * of seconds (never a 500, never an internal address in the body), reads that do not need the
 * missing part keep working, and everything serves again once it is back. The shared Postgres
 * and NATS are reached through relays this test cuts, so nobody else loses them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@edge/config';
import { silentLogger } from '@edge/logging';
import { startStandalone, type RunningController } from '@edge/launcher';
import { createHttpClient, loadSpecValidator, startTcpProxy, type HttpClient, type HttpResult, type TcpProxy } from '@edge/testing';
import { cleanupPrefix } from './support/cleanup.js';
import { TEST_DATABASE_URL, TEST_NATS_URL, uniquePrefix } from './support/infra.js';

const M = '/edge/management/v1';
const prefix = uniquePrefix();
const dataDir = mkdtempSync(join(tmpdir(), 'edge-outage-'));
let pgProxy: TcpProxy;
let natsProxy: TcpProxy;
let running: RunningController;
let http: HttpClient;
let admin = '';

/** `url` with its host and port replaced by the relay's. */
function viaProxy(url: string, proxy: TcpProxy): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(proxy.port);
  return u.toString().replace(/\/$/, '');
}

beforeAll(async () => {
  const pg = new URL(TEST_DATABASE_URL);
  const nats = new URL(TEST_NATS_URL);
  pgProxy = await startTcpProxy(Number(pg.port || 5432), pg.hostname);
  natsProxy = await startTcpProxy(Number(nats.port || 4222), nats.hostname);
  const config = loadConfig({
    EDGE_DATA_DIR: dataDir,
    EDGE_HTTP_ADDR: '127.0.0.1:0',
    EDGE_ADMIN_PASSWORD: 'outage-admin-pw',
    EDGE_LOG_LEVEL: 'silent',
    EDGE_SHUTDOWN_GRACE_MS: '2000',
    EDGE_DATABASE_URL: viaProxy(TEST_DATABASE_URL, pgProxy),
    EDGE_DATABASE_SCHEMA_PREFIX: `${prefix}_`,
    EDGE_NATS_URL: viaProxy(TEST_NATS_URL, natsProxy),
    EDGE_NATS_SUBJECT_PREFIX: `${prefix}.`,
    EDGE_GRPC_DEADLINE_MS: '3000',
  });
  running = await startStandalone(config, silentLogger());
  http = createHttpClient({ baseUrl: running.url, ca: running.caPem, validator: loadSpecValidator() });
  admin = (await http.post(`${M}/authenticate?method=password`, { body: { username: 'admin', password: 'outage-admin-pw' }, expectStatus: 200 })).body.data.token;
}, 120_000);

afterAll(async () => {
  http?.close();
  await pgProxy?.restore();
  await natsProxy?.restore();
  await running?.stop();
  await pgProxy?.close();
  await natsProxy?.close();
  await cleanupPrefix(prefix);
  rmSync(dataDir, { recursive: true, force: true });
});

async function timed(fn: () => Promise<HttpResult>): Promise<HttpResult & { ms: number }> {
  const started = Date.now();
  const r = await fn();
  return Object.assign(r, { ms: Date.now() - started });
}

/** What no answer may contain: where the database, NATS or the services are. */
function expectNoInternalAddress(r: HttpResult) {
  for (const port of [pgProxy.port, natsProxy.port]) expect(r.text).not.toContain(String(port));
  expect(r.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|postgres:\/\/|nats:\/\/|local:/);
}

async function eventuallyStatus(fn: () => Promise<HttpResult>, status: number, ms = 15_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const r = await fn();
    if (r.status === status) return Date.now() - started;
    if (Date.now() - started > ms) throw new Error(`still ${r.status} after ${ms} ms: ${r.text}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

// A page the gateway holds is answered without asking the identity service
// (http/identity-listing.ts): each probe asks for a page it has not read before.
let probes = 0;
const listIdentities = () => http.get(`${M}/identities?limit=5&filter=${encodeURIComponent(`name != "outage-probe-${probes++}"`)}`, { session: admin });
let created = 0;
const createIdentity = () => http.post(`${M}/identities`, { body: { name: `outage-${created++}`, type: 'Device', isAdmin: false }, session: admin });

describe('Postgres unreachable', () => {
  it('answers 503 UNAVAILABLE at once while connections are refused, naming no address, and serves again when it is back', async () => {
    expect((await listIdentities()).status).toBe(200);
    await pgProxy.cut();
    for (const call of [listIdentities, createIdentity]) {
      const r = await timed(call);
      expect(r.status, r.text).toBe(503);
      expect(r.body.error).toMatchObject({ code: 'UNAVAILABLE' });
      expect(r.ms).toBeLessThan(2_500);
      expectNoInternalAddress(r);
    }
    await pgProxy.restore();
    const backMs = await eventuallyStatus(listIdentities, 200);
    expect(backMs).toBeLessThan(5_000);
    expect((await createIdentity()).status).toBe(201);
  });

  it('answers 503 UNAVAILABLE within a couple of seconds when the server hangs', async () => {
    await pgProxy.blackhole();
    try {
      await new Promise((r) => setTimeout(r, 200));
      const r = await timed(listIdentities);
      expect(r.status, r.text).toBe(503);
      expect(r.body.error).toMatchObject({ code: 'UNAVAILABLE' });
      expect(r.ms).toBeLessThan(4_000);
      expectNoInternalAddress(r);
    } finally {
      await pgProxy.restore();
    }
    await eventuallyStatus(listIdentities, 200);
  });
});

describe('NATS unreachable', () => {
  it('keeps serving reads and writes at once, and works as before once NATS is back', async () => {
    await natsProxy.cut();
    try {
      const read = await timed(listIdentities);
      expect(read.status).toBe(200);
      expect(read.ms).toBeLessThan(1_000);
      const write = await timed(createIdentity);
      // Committed with its event in the outbox, which is relayed once NATS is back. The write
      // waits at most the outbox's relay wait (1 s) for a publish that cannot happen; without the
      // outbox it hung for the publish timeout (5 s) and then failed. The bound is that hang, not
      // a speed figure.
      expect(write.status, write.text).toBe(201);
      expect(write.ms).toBeLessThan(4_000);
    } finally {
      await natsProxy.restore();
    }
    await eventuallyStatus(createIdentity, 201, 20_000);
  }, 40_000);
});

describe('a service down', () => {
  it('is waited for until the request\'s deadline, then 503 UNAVAILABLE naming no address, and used again as soon as it is back (also after a restart in the process)', async () => {
    const policy = running.service('policy');
    await policy.stop();
    let restarted: Promise<void> | undefined;
    try {
      const listServices = () => http.get(`${M}/services?limit=5`, { session: admin });
      const down = await timed(listServices);
      expect(down.status, down.text).toBe(503);
      expect(down.body.error).toMatchObject({ code: 'UNAVAILABLE', causeMessage: 'the policy service is not available' });
      // EDGE_GRPC_DEADLINE_MS is 3 s here: the request waited for the service that long, no longer.
      expect(down.ms).toBeGreaterThan(2_500);
      expect(down.ms).toBeLessThan(4_500);
      expectNoInternalAddress(down);
      restarted = policy.start();
      await restarted;
      const back = await timed(listServices);
      expect(back.status).toBe(200);
      expect(back.ms).toBeLessThan(1_500);
    } finally {
      await restarted;
    }
  }, 30_000);
});

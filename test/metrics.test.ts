/**
 * Prometheus metrics of the standalone controller: one /metrics endpoint for the process with
 * every service's gRPC calls, the gateway's HTTP requests by route, authentication outcomes and
 * process metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_NAMES } from '@edge/config';
import { peerClient } from '@edge/rpc';
import { startTestController, type TestController } from './support/controller.js';
import { sampleSum, scrape } from './support/metrics.js';
import { rawExchange } from './support/raw-http.js';

const HTTP = 'edge_http_server_request_duration_seconds_count';
const GRPC = 'edge_grpc_server_handling_seconds_count';
let c: TestController;
let addr: string;

beforeAll(async () => {
  c = await startTestController({ env: { EDGE_METRICS_ADDR: '127.0.0.1:0', EDGE_AUTH_RATE_LIMIT_PER_USERNAME: '6' } });
  addr = `127.0.0.1:${c.running.metricsPort}`;
});
afterAll(() => c?.stop());

describe('standalone /metrics', () => {
  it('counts a request in the HTTP histogram under its route pattern and status', async () => {
    const token = await c.login();
    const labels = { method: 'GET', route: '/edge/management/v1/identities/:id', status_code: '404' };
    const before = sampleSum(await scrape(addr), HTTP, labels);
    await c.http.get('/edge/management/v1/identities/does-not-exist', { session: token, expectStatus: 404 });
    const text = await scrape(addr);
    expect(sampleSum(text, HTTP, labels)).toBe(before + 1);
    expect(text).not.toContain('does-not-exist');
    expect(sampleSum(text, 'edge_http_server_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(before + 1);
  });

  it('counts authentication successes and failures by method', async () => {
    const count = async (result: string) => sampleSum(await scrape(addr), 'edge_authentications_total', { method: 'password', result });
    const [ok, failed] = [await count('success'), await count('failure')];
    await c.login();
    await c.http.post('/edge/management/v1/authenticate?method=password', { body: { username: 'admin', password: 'wrong-password' }, expectStatus: 401 });
    expect(await count('success')).toBe(ok + 1);
    expect(await count('failure')).toBe(failed + 1);
  });

  it('has gRPC series of every service and process metrics', async () => {
    // Nothing in the gateway calls the policy service yet: call its first method directly.
    const policy = peerClient(c.running.config.grpc, 'policy', { deadlineMs: 5000 });
    const first = Object.keys(policy).find((k) => k !== 'close')!;
    await (policy as unknown as Record<string, (r: object) => Promise<unknown>>)[first]!({}).catch(() => undefined);
    policy.close();
    const text = await scrape(addr);
    for (const s of SERVICE_NAMES) expect(sampleSum(text, GRPC, { grpc_service: `edge.${s}.v1.${s[0]!.toUpperCase()}${s.slice(1)}Service` }), s).toBeGreaterThan(0);
    expect(sampleSum(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('counts rate-limit rejections, event lag by subject and the database pool', async () => {
    const token = await c.login();
    const rejected = async () => sampleSum(await scrape(addr), 'edge_rate_limit_rejections_total', { scope: 'username' });
    const before = await rejected();
    for (let i = 0; i < 8; i++) await c.http.post('/edge/management/v1/authenticate?method=password', { body: { username: 'flooded-user', password: 'whatever' }, skipValidation: true });
    expect(await rejected()).toBeGreaterThan(before);

    const lag = 'edge_event_lag_seconds_count';
    const subject = { subject: 'edge.identity.identity.deleted' };
    const consumed = sampleSum(await scrape(addr), lag, subject);
    const id = (await c.http.post('/edge/management/v1/identities', { body: { name: 'metrics-lag', type: 'User', isAdmin: false }, session: token, expectStatus: 201 })).body.data.id;
    await c.http.delete(`/edge/management/v1/identities/${id}`, { session: token, expectStatus: 200 });
    await expect.poll(async () => sampleSum(await scrape(addr), lag, subject), { timeout: 5_000 }).toBeGreaterThan(consumed);

    expect(sampleSum(await scrape(addr), 'edge_db_pool_connections', { pool: 'postgres', state: 'total' })).toBeGreaterThan(0);
  });

  it('counts requests no route matches as route "unmatched", by method and status, without their paths', async () => {
    const count = async (method: string, status: string) => sampleSum(await scrape(addr), HTTP, { method, route: 'unmatched', status_code: status });
    const before = { get404: await count('GET', '404'), delete405: await count('DELETE', '405'), other: await count('other', '404'), raw400: await count('other', '400') };
    await c.http.get('/edge/management/v1/no-such-family/x-unmatched-1', { expectStatus: 404, skipValidation: true });
    await c.http.get('/edge/management/v1/no-such-family/x-unmatched-2', { expectStatus: 404, skipValidation: true });
    await c.http.delete('/edge/management/v1/version', { expectStatus: 405, skipValidation: true });
    // a method outside the API's (WebDAV) on an unknown path, and a request the HTTP parser refuses
    const host = new URL(c.running.url).host;
    expect((await rawExchange(c.running, `PROPFIND /x-unmatched-3 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)).status).toBe(404);
    expect((await rawExchange(c.running, `GET /x-unmatched-4 HTTP/1.1\r\nHost: ${host}\r\nbad header: x\r\n\r\n`)).status).toBe(400);
    const text = await scrape(addr);
    expect(sampleSum(text, HTTP, { method: 'GET', route: 'unmatched', status_code: '404' })).toBe(before.get404 + 2);
    expect(sampleSum(text, HTTP, { method: 'DELETE', route: 'unmatched', status_code: '405' })).toBe(before.delete405 + 1);
    expect(sampleSum(text, HTTP, { method: 'other', route: 'unmatched', status_code: '404' })).toBe(before.other + 1);
    expect(sampleSum(text, HTTP, { method: 'other', route: 'unmatched', status_code: '400' })).toBe(before.raw400 + 1);
    expect(text).not.toContain('x-unmatched');
    expect(text).not.toContain('PROPFIND');
  });

  it('exposes edge_build_info with the version GET /version answers', async () => {
    const version = (await c.http.get('/version', { expectStatus: 200 })).body.data;
    const text = await scrape(addr);
    expect(sampleSum(text, 'edge_build_info', { version: version.version, revision: version.revision, node_version: process.version })).toBe(1);
    expect(text.split('\n').filter((l) => l.startsWith('edge_build_info{'))).toHaveLength(1);
  });
});


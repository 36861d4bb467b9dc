import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestController, type TestController } from '../support/controller.js';
import { createPasswordIdentity } from '../support/password-identity.js';

const C = '/edge/client/v1';
let c: TestController;

beforeAll(async () => {
  c = await startTestController({
    env: { EDGE_AUTH_MAX_CONCURRENT: '2', EDGE_AUTH_RATE_LIMIT_PER_IP: '1000', EDGE_AUTH_RATE_LIMIT_PER_USERNAME: '200' },
  });
});
afterAll(async () => c?.stop());

describe('authentication rate limits', () => {
  it('answers a flood of logins beyond the concurrent bound with 429 while other requests are served', async () => {
    const logins = Array.from({ length: 30 }, (_, i) =>
      c.http.post(`${C}/authenticate?method=password`, { body: { username: ADMIN.username, password: i % 2 ? ADMIN.password : 'wrong-password' } }));
    const version = c.http.get('/version', { expectStatus: 200 });
    const results = await Promise.all(logins);
    expect((await version).body.data.apiVersions.edge.v1.path).toBe(C);

    const limited = results.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]!.body.error.code).toBe('SERVER_TOO_MANY_REQUESTS');
    expect(results.filter((r) => r.status === 200 || r.status === 401).length).toBeGreaterThan(0);
    expect(results.every((r) => [200, 401, 429].includes(r.status))).toBe(true);
    // the flood is over: logins are served again
    await c.http.post(`${C}/authenticate?method=password`, { body: ADMIN, expectStatus: 200 });
  });
});

describe('per-username and per-address limits', () => {
  let d: TestController;
  beforeAll(async () => {
    d = await startTestController({ env: { EDGE_AUTH_RATE_LIMIT_PER_USERNAME: '3', EDGE_AUTH_RATE_LIMIT_WINDOW_SECONDS: '600' } });
  });
  afterAll(async () => d?.stop());

  it('answers the failures on one username past its limit with 429, but never refuses the correct password', async () => {
    const admin = await d.login();
    await createPasswordIdentity(d, admin, 'guessed-user', 'guessed-password');
    const attempt = (password: string) => d.http.post(`${C}/authenticate?method=password`, { body: { username: 'guessed-user', password } });
    for (let i = 0; i < 3; i++) expect((await attempt('wrong-password')).status).toBe(401);
    const throttled = await attempt('wrong-password');
    expect(throttled.status).toBe(429);
    expect(throttled.body.error.code).toBe('SERVER_TOO_MANY_REQUESTS');
    // regression: every attempt counted, and past the limit the correct password got 429 too
    expect((await attempt('guessed-password')).status).toBe(200);
    expect((await attempt('wrong-password')).status).toBe(429);
    await d.http.post(`${C}/authenticate?method=password`, { body: ADMIN, expectStatus: 200 });
  });
});

describe('logins at the default limits', () => {
  let d: TestController;
  beforeAll(async () => {
    d = await startTestController();
  });
  afterAll(async () => d?.stop());

  // regression: successes counted against 20 per username and 120 per address a minute, so a CI job,
  // a console or tunnelers behind one NAT got 429 for correct credentials
  it('lets one user log in 200 times within a minute from one address', async () => {
    const started = Date.now();
    const statuses: number[] = [];
    for (let batch = 0; batch < 50; batch++) {
      const logins = Array.from({ length: 4 }, () => d.http.post(`${C}/authenticate?method=password`, { body: ADMIN }));
      statuses.push(...(await Promise.all(logins)).map((r) => r.status));
    }
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(statuses).toHaveLength(200);
  });

  it('still throttles failures from one address past its limit', async () => {
    const statuses: number[] = [];
    // the window is estimated (sliding window counter), so the limit may bite a little late
    // when the attempts straddle a window edge, never early
    for (let i = 0; i < 200 && !statuses.includes(429); i++) {
      const r = await d.http.post(`${C}/authenticate?method=password`, { body: { username: `nobody-${i}`, password: 'wrong-password' } });
      statuses.push(r.status);
    }
    const first = statuses.indexOf(429);
    expect(first).toBeGreaterThanOrEqual(120);
    expect(statuses.slice(0, first)).toEqual(Array(first).fill(401));
    await d.http.post(`${C}/authenticate?method=password`, { body: ADMIN, expectStatus: 200 });
  });
});

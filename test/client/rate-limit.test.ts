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

describe('per-username limit', () => {
  let d: TestController;
  beforeAll(async () => {
    d = await startTestController({ env: { EDGE_AUTH_RATE_LIMIT_PER_USERNAME: '3', EDGE_AUTH_RATE_LIMIT_WINDOW_SECONDS: '600' } });
  });
  afterAll(async () => d?.stop());

  it('refuses the attempts on one username past its limit, but not other usernames', async () => {
    const admin = await d.login();
    await createPasswordIdentity(d, admin, 'guessed-user', 'guessed-password');
    // createPasswordIdentity logged in once; two more attempts reach the limit of 3
    for (let i = 0; i < 2; i++) {
      expect((await d.http.post(`${C}/authenticate?method=password`, { body: { username: 'guessed-user', password: 'wrong-password' } })).status).toBe(401);
    }
    const refused = await d.http.post(`${C}/authenticate?method=password`, { body: { username: 'guessed-user', password: 'guessed-password' } });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('SERVER_TOO_MANY_REQUESTS');
    await d.http.post(`${C}/authenticate?method=password`, { body: ADMIN, expectStatus: 200 });
  });
});

/**
 * Every answer carries `ziti-instance-id`, as OpenZiti's (controller/webapis/client-api.go): the C
 * SDK reads it on every response and, when it changes, reads /version again and re-sends its
 * posture data. The id is the same for every answer of a controller and survives a restart with
 * the same data (posture data is stored, so a restart loses nothing the SDK must re-send).
 *
 * Regression: no answer had the header, so SDKs could not tell that the controller changed.
 */
import { describe, expect, it } from 'vitest';
import { useController, type TestController } from './support/controller.js';

let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));

const idOf = (r: { headers: Record<string, string | string[] | undefined> }) => r.headers['ziti-instance-id'];

describe('ziti-instance-id', () => {
  it('is sent, the same, on successes, errors, unknown routes, preflights and refused URLs of both APIs and the root paths', async () => {
    const answers = [
      await c.http.get('/version', { expectStatus: 200 }),
      await c.http.get('/edge/client/v1/current-identity', { headers: { 'zt-session': admin }, expectStatus: 200 }),
      await c.http.get('/edge/management/v1/identities', { headers: { 'zt-session': admin }, expectStatus: 200 }),
      await c.http.get('/edge/client/v1/current-identity', { expectStatus: 401 }),
      await c.http.get('/edge/management/v1/no-such-thing', { expectStatus: 404, skipValidation: true }),
      await c.http.get('/current-api-session', { headers: { 'zt-session': admin }, expectStatus: 200 }),
      // Answered before routing: a CORS preflight, and a path id no store can hold.
      await c.http.request('OPTIONS', '/edge/client/v1/services', {
        headers: { origin: 'https://console.example', 'access-control-request-method': 'GET' }, expectStatus: 200, skipValidation: true,
      }),
      await c.http.get('/edge/management/v1/identities/%00', { headers: { 'zt-session': admin }, expectStatus: 404, skipValidation: true }),
    ];
    const ids = answers.map(idOf);
    expect(ids[0]).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(new Set(ids)).toEqual(new Set([ids[0]]));
  });

  it('stays the same across a restart on the same data', async () => {
    const before = idOf(await c.http.get('/version', { expectStatus: 200 }));
    await c.restart();
    expect(idOf(await c.http.get('/version', { expectStatus: 200 }))).toBe(before);
  });
});

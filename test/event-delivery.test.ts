/**
 * Events are recorded with the writes that cause them (the outbox of each service) and relayed
 * to NATS after the commit, so a write answers at once while NATS is down and its events are
 * delivered once NATS is back. The controller here talks to a NATS of this file's own.
 */
import { startNatsServer, type TestNatsServer } from '@edge/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi } from './support/admin-api.js';
import { startTestController, type TestController } from './support/controller.js';
import { eventually } from './support/eventually.js';
import { createPasswordIdentity } from './support/password-identity.js';

const C = '/edge/client/v1';
const PUBLISHERS = ['auth', 'identity', 'pki', 'policy'] as const;
let nats: TestNatsServer;
let c: TestController;
let admin: string;
const api = adminApi(() => c, () => admin);
const id = async (path: string, body: unknown) => (await api.post(path, body)).body.data.id as string;

beforeAll(async () => {
  nats = await startNatsServer();
  c = await startTestController({ embedded: false, env: { EDGE_NATS_URL: nats.url } });
  admin = await c.login();
});
afterAll(async () => {
  await c?.stop();
  await nats?.close();
});

/** Two identities in role #out, each with a Dial session of a service in role #out. */
async function sessionsOfTwo() {
  const users = [];
  for (const name of ['out-a', 'out-b']) {
    const user = await createPasswordIdentity(c, admin, name, `${name}-password-1`);
    await api.patch(`/identities/${user.id}`, { roleAttributes: ['out'] });
    users.push(user);
  }
  const service = await id('/services', { name: 'out-svc', encryptionRequired: true, roleAttributes: ['out'] });
  await id('/edge-routers', { name: 'out-er', roleAttributes: ['out'] });
  await id('/edge-router-policies', { name: 'out-erp', semantic: 'AnyOf', identityRoles: ['#out'], edgeRouterRoles: ['#out'] });
  await id('/service-edge-router-policies', { name: 'out-serp', semantic: 'AllOf', serviceRoles: ['#out'], edgeRouterRoles: ['#out'] });
  await id('/service-policies', { name: 'out-dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#out'], serviceRoles: ['#out'] });
  const sessions = [];
  for (const u of users) sessions.push((await c.http.post(`${C}/sessions`, { body: { serviceId: service }, session: u.token, expectStatus: 201 })).body.data.id as string);
  return { users, sessions };
}

describe('events while NATS is down', () => {
  // regression: with NATS down every write committed and answered 500 after 5 s, and its events
  // were lost for good: the sessions of a logged-out API session and of a deleted identity, and
  // the deleted identity's authenticator, stayed until a restart or fix-data-integrity
  it('answers writes at once and delivers their events once NATS is back', async () => {
    const { users: [a, b], sessions: [ofA, ofB] } = await sessionsOfTwo();
    await nats.stop();
    try {
      const started = Date.now();
      await api.post('/identities', { name: 'made-while-down', type: 'User', isAdmin: false });
      await c.http.delete(`${C}/current-api-session`, { session: a!.token, expectStatus: 200 });
      await api.del(`/identities/${b!.id}`);
      expect(Date.now() - started).toBeLessThan(3_000);
      const waiting = await Promise.all(PUBLISHERS.map(async (s) => (await c.query<{ n: number }>(`select count(*)::int as n from ${c.schema(s)}.outbox`))[0]!.n));
      expect(waiting.reduce((x, y) => x + y)).toBeGreaterThanOrEqual(3);
    } finally {
      await nats.start();
    }
    const gone = (sessionId: string) => async () => (await c.http.get(`/edge/management/v1/sessions/${sessionId}`, { session: admin })).status === 404;
    await eventually(gone(ofA!));
    await eventually(gone(ofB!));
    await eventually(async () => (await c.query(`select id from ${c.schema('auth')}.authenticators where identity_id = $1`, [b!.id])).length === 0);
    for (const s of PUBLISHERS) await eventually(async () => (await c.query(`select id from ${c.schema(s)}.outbox`)).length === 0);
  });
});

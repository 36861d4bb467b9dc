/**
 * The enrollments an identity is created with, made by the pki service from the identity's
 * created event (real Postgres schema, real NATS, real gRPC port; the identity and auth services
 * are small stand-ins). The gateway makes them too, right after the identity; this is what
 * repairs an identity whose gateway stopped between the two calls, so it must make exactly one
 * whatever the order, and drop what it cannot make without holding up the events after it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IDENTITY_CREATED, type EnrollmentAsk, type IdentityCreatedEvent } from '@edge/events';
import { silentLogger } from '@edge/logging';
import { contracts, type AuthServiceHandlers, type IdentityServiceHandlers } from '@edge/proto';
import { createRpcClient } from '@edge/rpc';
import { createServiceInfra, createTeardown, testPrefix, TEST_DIR_PREFIX, type ServiceInfra } from '@edge/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPkiService } from '../src/index.js';
import { createFakes, identityLookups } from './support.js';

const prefix = testPrefix();
const dataDir = mkdtempSync(join(tmpdir(), `${TEST_DIR_PREFIX}${prefix}pki-ask-`));
const teardown = createTeardown();
teardown.add(() => rmSync(dataDir, { recursive: true, force: true }));
const identities = new Set(['once', 'twice', 'made', 'valid-after', 'bad-ca', 'redeemed', 'marker1', 'marker2', 'marker3', 'racing']);
/** Identities whose ott enrollment was already redeemed (they have a cert authenticator). */
const withCert = new Set(['redeemed']);
const fakes = createFakes();
let infra: ServiceInfra;
let client: ReturnType<typeof createPkiClient>;

function createPkiClient(port: number) {
  return createRpcClient(contracts.pki(), `127.0.0.1:${port}`, { deadlineMs: 5000 });
}

/** What the identity service publishes for a new identity with these enrollments. */
function created(id: string, enrollments: EnrollmentAsk[]): IdentityCreatedEvent {
  return {
    id, name: id, typeId: 'Default', isAdmin: false, isDefaultAdmin: false, disabled: false, disabledUntil: null, roleAttributes: [],
    authPolicyId: 'default', externalId: null, permissions: [], updatedAt: new Date().toISOString(), enrollments,
  };
}

const enrollmentsOf = async (identityId: string) =>
  (await client.getEnrollmentsOf({ identityIds: [identityId], edgeRouterIds: [], transitRouterIds: [] })).enrollments;

/** Waits until the consumer handled everything published before: its events are handled one at a time, in order. */
async function handledSoFar(marker: string): Promise<void> {
  await infra.bus.publish(IDENTITY_CREATED, created(marker, [{ method: 'ott' }]));
  await expect.poll(async () => (await enrollmentsOf(marker)).length, { timeout: 10_000 }).toBe(1);
}

beforeAll(async () => {
  teardown.add(() => fakes.stop());
  const identityAddr = await fakes.add<IdentityServiceHandlers>('identity', contracts.identity(), {
    ...identityLookups(identities),
    async ListRouters() {
      return { routers: [], meta: { totalCount: 0 } as never };
    },
  });
  const authAddr = await fakes.add<AuthServiceHandlers>('auth', contracts.auth(), {
    async GetIdentityAuthSummaries(req) {
      return { summaries: req.identityIds.map((identityId) => ({ identityId, certId: withCert.has(identityId) ? 'cert1' : undefined }) as never) };
    },
  });
  infra = await createServiceInfra(teardown, 'pki', prefix, {
    EDGE_DATA_DIR: dataDir, EDGE_KEY_ENCRYPTION_KEY: randomBytes(32).toString('hex'), EDGE_ADVERTISED_ADDRESS: 'ctrl.test.example:1280',
    EDGE_IDENTITY_GRPC_ADDR: identityAddr, EDGE_AUTH_GRPC_ADDR: authAddr,
  });
  const svc = createPkiService({ config: infra.config, conn: infra.conn, bus: infra.bus, log: silentLogger() });
  teardown.add(() => svc.stop());
  await svc.start();
  client = createPkiClient(svc.port());
  teardown.add(() => client.close());
}, 30_000);

afterAll(() => teardown.run());

describe('enrollments asked for with an identity', () => {
  it('creates the ott enrollment of an identity created with one, as CreateEnrollment would', async () => {
    await infra.bus.publish(IDENTITY_CREATED, created('once', [{ method: 'ott' }]));
    await expect.poll(async () => (await enrollmentsOf('once')).length, { timeout: 10_000 }).toBe(1);
    const [e] = await enrollmentsOf('once');
    expect(e).toMatchObject({ method: 'ott', identityId: 'once' });
    const minutes = (Date.parse(e!.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(179);
    expect(minutes).toBeLessThanOrEqual(180);
  });

  it('creates one enrollment from an event delivered twice', async () => {
    await infra.bus.publish(IDENTITY_CREATED, created('twice', [{ method: 'ott' }]));
    await infra.bus.publish(IDENTITY_CREATED, created('twice', [{ method: 'ott' }]));
    await handledSoFar('marker1');
    expect(await enrollmentsOf('twice')).toHaveLength(1);
  });

  it('changes nothing for an identity that already has the enrollment (its creator made it)', async () => {
    const made = await client.createEnrollment({ method: 'ott', identityId: 'made', expiresAt: '' });
    await infra.bus.publish(IDENTITY_CREATED, created('made', [{ method: 'ott' }]));
    await handledSoFar('marker2');
    expect(await enrollmentsOf('made')).toEqual([made]);
  });

  it('skips what it cannot make (identity gone, CA unknown, enrollment redeemed) and still handles the next event', async () => {
    await infra.bus.publish(IDENTITY_CREATED, created('gone', [{ method: 'ott' }]));
    await infra.bus.publish(IDENTITY_CREATED, created('bad-ca', [{ method: 'ottca', caId: 'no-such-ca' }]));
    await infra.bus.publish(IDENTITY_CREATED, created('redeemed', [{ method: 'ott' }]));
    await infra.bus.publish(IDENTITY_CREATED, created('valid-after', [{ method: 'ott' }, { method: 'updb', username: 'valid-after' }]));
    await expect.poll(async () => (await enrollmentsOf('valid-after')).map((e) => e.method).sort(), { timeout: 10_000 }).toEqual(['ott', 'updb']);
    expect(await enrollmentsOf('gone')).toEqual([]);
    expect(await enrollmentsOf('bad-ca')).toEqual([]);
    expect(await enrollmentsOf('redeemed')).toEqual([]);
  });
});

describe('CreateEnrollment if absent', () => {
  it('answers the enrollment the identity has of that method instead of ENROLLMENT_EXISTS', async () => {
    await infra.bus.publish(IDENTITY_CREATED, created('racing', [{ method: 'ott' }]));
    await handledSoFar('marker3');
    const [fromEvent] = await enrollmentsOf('racing');
    expect(await client.createEnrollment({ method: 'ott', identityId: 'racing', expiresAt: '', ifAbsent: true })).toEqual(fromEvent);
    await expect(client.createEnrollment({ method: 'ott', identityId: 'racing', expiresAt: '' })).rejects.toMatchObject({ code: 'ENROLLMENT_EXISTS' });
    expect(await enrollmentsOf('racing')).toHaveLength(1);
  });
});

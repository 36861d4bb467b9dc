/**
 * The enrollment RPCs of the pki service on a real Postgres schema and a real gRPC port, with
 * small stand-ins for the identity and auth services (the only things outside the process).
 */
import { randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryBus, type Bus } from '@edge/bus';
import { loadConfig, type Config } from '@edge/config';
import { dropSchema, openConnection, type DbConnection } from '@edge/db';
import { ZitiError } from '@edge/errors';
import type { EdgeService } from '@edge/lifecycle';
import { silentLogger } from '@edge/logging';
import { createTeardown, testPrefix, TEST_DIR_PREFIX } from '@edge/testing';
import { contracts, type AuthServiceHandlers, type IdentityServiceHandlers } from '@edge/proto';
import { createRpcClient } from '@edge/rpc';
import { createLocalJWKSet, decodeJwt, importX509, jwtVerify } from 'jose';
import { sql, Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPkiService } from '../src/index.js';
import { createFakes, identityLookups, makeCsr } from './support.js';

const DATABASE_URL = process.env.EDGE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const prefix = `${testPrefix()}_`;
const dataDir = mkdtempSync(join(tmpdir(), `${TEST_DIR_PREFIX}${prefix}pki-enr-`));
// Whatever the file makes is removed after it, also when its set-up fails half-way.
const teardown = createTeardown();
teardown.add(() => rmSync(dataDir, { recursive: true, force: true }));
const identities = new Set(['ident1', 'ident2', 'ident3', 'ident4', 'ev1', 'ev2', 'ev3']);
const edgeRouters = new Set(['er1', 'er2', 'er3']);
const certAuthenticators: Array<{ identityId: string; certPem: string }> = [];
const updbAuthenticators: Array<{ identityId: string; username: string; password: string }> = [];
const routerCerts: Array<{ kind: string; id: string; fingerprint: string }> = [];
let conn: DbConnection;
let bus: Bus;
let svc: EdgeService;
let svcConfig: Config;
const fakes = createFakes();
let client: ReturnType<typeof createPkiClient>;

function createPkiClient(port: number) {
  return createRpcClient(contracts.pki(), `127.0.0.1:${port}`, { deadlineMs: 5000 });
}

function config(env: Record<string, string>): Config {
  return loadConfig({
    EDGE_DATABASE_URL: DATABASE_URL, EDGE_DATABASE_SCHEMA_PREFIX: prefix, EDGE_GRPC_LISTEN_ADDR: '127.0.0.1:0', EDGE_DATA_DIR: dataDir,
    EDGE_KEY_ENCRYPTION_KEY: randomBytes(32).toString('hex'), EDGE_ADVERTISED_ADDRESS: 'ctrl.test.example:1280', EDGE_SHUTDOWN_GRACE_MS: '500',
    ...env,
  });
}

const csr = (cn: string) => makeCsr(dataDir, cn);

beforeAll(async () => {
  conn = await openConnection({ url: DATABASE_URL, poolSize: 5 });
  teardown.add(() => conn.close());
  teardown.add(() => dropSchema(conn, `${prefix}pki`));
  teardown.add(() => fakes.stop());
  bus = createMemoryBus({ retryDelayMs: 20 });
  const identityAddr = await fakes.add<IdentityServiceHandlers>('identity', contracts.identity(), {
    ...identityLookups(identities),
    // Only the `id in [...]` filter the sweeps send.
    async ListRouters(req) {
      const ids = [...(req.query?.filter ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
      const routers = req.kind === 'edge' ? ids.filter((id) => edgeRouters.has(id)).map((id) => ({ id }) as never) : [];
      return { routers, meta: { totalCount: routers.length } as never };
    },
    async SetRouterCertificate(req) {
      routerCerts.push({ kind: req.kind, id: req.id, fingerprint: req.fingerprint });
      return {};
    },
  });
  const authAddr = await fakes.add<AuthServiceHandlers>('auth', contracts.auth(), {
    async CreateCertAuthenticator(req) {
      certAuthenticators.push({ identityId: req.identityId, certPem: req.certPem });
      return { id: 'a1' };
    },
    async CreateUpdbAuthenticator(req) {
      if (req.password.length < 5) throw new ZitiError('COULD_NOT_VALIDATE', { cause: { field: 'password', reason: 'too short' } });
      updbAuthenticators.push({ identityId: req.identityId, username: req.username, password: req.password });
      return { id: 'a2' };
    },
  });
  svcConfig = config({ EDGE_IDENTITY_GRPC_ADDR: identityAddr, EDGE_AUTH_GRPC_ADDR: authAddr });
  svc = createPkiService({ config: svcConfig, conn, bus, log: silentLogger() });
  teardown.add(() => svc.stop());
  await svc.start();
  client = createPkiClient(svc.port());
  teardown.add(() => client.close());
});

afterAll(() => teardown.run());

describe('enrollments', () => {
  it('creates an ott enrollment whose JWT verifies with the server certificate key and the JWKS', async () => {
    const e = await client.createEnrollment({ method: 'ott', identityId: 'ident1', expiresAt: '' });
    const minutes = (Date.parse(e.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(179);
    expect(minutes).toBeLessThanOrEqual(180);
    const tls = await client.getServerTls({});
    const leaf = tls.certChainPem.split(/(?<=-----END CERTIFICATE-----)/)[0]!;
    const { payload } = await jwtVerify(e.jwt, await importX509(leaf.trim(), 'ES256'));
    expect(payload).toMatchObject({ em: 'ott', jti: e.token, sub: 'ident1', iss: 'https://ctrl.test.example:1280' });
    const jwks = JSON.parse((await client.getEnrollmentJwks({})).jwksJson);
    await jwtVerify(e.jwt, createLocalJWKSet(jwks));
    expect(await client.getEnrollment({ id: e.id })).toEqual(e);
  });

  it('stores the token only as a hash and the JWT only sealed', async () => {
    const e = await client.createEnrollment({ method: 'ott', identityId: 'ident2', expiresAt: '' });
    const rows = await sql<Record<string, string>>`select * from ${sql.id(`${prefix}pki`, 'enrollments')} where id = ${e.id}`.execute(new Kysely<unknown>({ dialect: conn.dialect() }));
    const text = JSON.stringify(rows.rows);
    expect(text).not.toContain(e.token);
    expect(text).not.toContain(e.jwt.split('.')[1]);
  });

  it('answers 409 ENROLLMENT_EXISTS for a second enrollment of the same method, and checks references', async () => {
    await expect(client.createEnrollment({ method: 'ott', identityId: 'ident1', expiresAt: '' })).rejects.toMatchObject({ code: 'ENROLLMENT_EXISTS', status: 409 });
    await expect(client.createEnrollment({ method: 'ott', identityId: 'nobody', expiresAt: '' })).rejects.toMatchObject({ code: 'REFERENCED_ENTITY_NOT_FOUND' });
    await expect(client.createEnrollment({ method: 'ottca', identityId: 'ident1', caId: 'ca1', expiresAt: '' })).rejects.toMatchObject({ code: 'REFERENCED_ENTITY_NOT_FOUND', fieldCause: { field: 'caId' } });
    await expect(client.createEnrollment({ method: 'updb', identityId: 'ident1', expiresAt: '' })).rejects.toMatchObject({ code: 'COULD_NOT_VALIDATE', fieldCause: { field: 'username' } });
    await expect(client.createEnrollment({ method: 'ott', identityId: 'ident3', expiresAt: '2001-01-01T00:00:00Z' })).rejects.toMatchObject({ code: 'COULD_NOT_VALIDATE', fieldCause: { field: 'expiresAt' } });
  });

  it('redeems an ott token once: a client certificate with CN = the identity id, a cert authenticator', async () => {
    const [e] = (await client.getEnrollmentsOf({ identityIds: ['ident1'], edgeRouterIds: [], transitRouterIds: [] })).enrollments;
    const certs = await client.enrollWithCsr({ method: 'ott', token: e!.token, clientCsrPem: csr('anything'), serverCsrPem: '' });
    expect(new X509Certificate(certs.cert).subject).toBe('CN=ident1');
    expect(certAuthenticators).toEqual([{ identityId: 'ident1', certPem: certs.cert }]);
    await expect(client.getEnrollment({ id: e!.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(client.enrollWithCsr({ method: 'ott', token: e!.token, clientCsrPem: csr('x'), serverCsrPem: '' })).rejects.toMatchObject({ code: 'INVALID_ENROLLMENT_TOKEN' });
  });

  it('keeps the token usable when the CSR is bad, and refuses expired and refreshed-away tokens', async () => {
    const e = await client.createEnrollment({ method: 'ott', identityId: 'ident3', expiresAt: '' });
    await expect(client.enrollWithCsr({ method: '', token: e.token, clientCsrPem: 'garbage', serverCsrPem: '' })).rejects.toMatchObject({ code: 'MISSING_OR_INVALID_CSR' });
    const refreshed = await client.refreshEnrollment({ id: e.id, expiresAt: new Date(Date.now() + 3600_000).toISOString() });
    expect(refreshed.token).not.toBe(e.token);
    expect(decodeJwt(refreshed.jwt).jti).toBe(refreshed.token);
    await expect(client.enrollWithCsr({ method: 'ott', token: e.token, clientCsrPem: csr('x'), serverCsrPem: '' })).rejects.toMatchObject({ code: 'INVALID_ENROLLMENT_TOKEN' });
    await sql`update ${sql.id(`${prefix}pki`, 'enrollments')} set expires_at = now() - interval '1 minute' where id = ${e.id}`.execute(new Kysely<unknown>({ dialect: conn.dialect() }));
    await expect(client.enrollWithCsr({ method: 'ott', token: refreshed.token, clientCsrPem: csr('x'), serverCsrPem: '' })).rejects.toMatchObject({ code: 'ENROLLMENT_EXPIRED' });
    await client.deleteEnrollment({ id: e.id });
  });

  it('redeems a updb token with a password; a refused password leaves it usable', async () => {
    const e = await client.createEnrollment({ method: 'updb', identityId: 'ident3', username: 'user3', expiresAt: '' });
    await expect(client.enrollUpdb({ token: e.token, password: 'abc' })).rejects.toMatchObject({ code: 'COULD_NOT_VALIDATE' });
    await expect(client.enrollWithCsr({ method: '', token: e.token, clientCsrPem: csr('x'), serverCsrPem: '' })).rejects.toMatchObject({ code: 'INVALID_ENROLL_METHOD' });
    await client.enrollUpdb({ token: e.token, password: 'long enough' });
    expect(updbAuthenticators).toEqual([{ identityId: 'ident3', username: 'user3', password: 'long enough' }]);
  });

  it('replaces a router enrollment and redeems it for a server and a client certificate', async () => {
    const first = await client.replaceRouterEnrollment({ kind: 'edge', routerId: 'er1' });
    const second = await client.replaceRouterEnrollment({ kind: 'edge', routerId: 'er1' });
    expect(first.method).toBe('erott');
    await expect(client.enrollWithCsr({ method: 'erott', token: first.token, clientCsrPem: csr('er1'), serverCsrPem: csr('er1') })).rejects.toMatchObject({ code: 'INVALID_ENROLLMENT_TOKEN' });
    await expect(client.enrollWithCsr({ method: 'erott', token: second.token, clientCsrPem: csr('other'), serverCsrPem: csr('er1') })).rejects.toMatchObject({ code: 'EDGE_ROUTER_ENROLL_COMMON_NAME_INVALID' });
    const certs = await client.enrollWithCsr({ method: 'erott', token: second.token, clientCsrPem: csr('er1'), serverCsrPem: csr('er1') });
    expect(certs.serverCert).toContain('BEGIN CERTIFICATE');
    expect(routerCerts).toEqual([{ kind: 'edge', id: 'er1', fingerprint: new X509Certificate(certs.cert).fingerprint.replace(/:/g, '').toLowerCase() }]);
  });

  it('lists through the filter language', async () => {
    const page = await client.listEnrollments({ query: { filter: 'method = "updb" or identity = "ident2"', limit: 0, offset: 0, sort: '', roleFilter: [], roleSemantic: '' } });
    expect(page.enrollments.map((e) => e.identityId)).toEqual(['ident2']);
    await expect(client.listEnrollments({ query: { filter: 'token = "x"', limit: 0, offset: 0, sort: '', roleFilter: [], roleSemantic: '' } })).rejects.toMatchObject({ code: 'INVALID_FILTER' });
  });

  it('drops the enrollments of a deleted identity (idempotently)', async () => {
    await bus.publish('edge.identity.identity.deleted', { id: 'ident2' });
    await bus.publish('edge.identity.identity.deleted', { id: 'ident2' });
    await expect.poll(async () => (await client.getEnrollmentsOf({ identityIds: ['ident2'], edgeRouterIds: [], transitRouterIds: [] })).enrollments.length).toBe(0);
  });

  it('sweeps the enrollments of identities that went while no replica listened, at start-up', async () => {
    const e = await client.createEnrollment({ method: 'ott', identityId: 'ident4', expiresAt: '' });
    identities.delete('ident4');
    const replica = createPkiService({ config: svcConfig, conn, bus: createMemoryBus(), log: silentLogger() });
    await replica.start();
    try {
      await expect.poll(async () => (await client.getEnrollment({ id: e.id }).catch((err: { code?: string }) => err.code))).toBe('NOT_FOUND');
    } finally {
      await replica.stop();
    }
  });

  // regression: only a start-up sweep looked, and only at identities, so the enrollment of a
  // router whose deleted event was lost stayed until fix-data-integrity
  it('removes, on its periodic reconciliation, the enrollments of a router and an identity deleted while their events were lost', async () => {
    const router = await client.replaceRouterEnrollment({ kind: 'edge', routerId: 'er2' });
    const identity = await client.createEnrollment({ method: 'ott', identityId: 'ident3', expiresAt: '' });
    const kept = await client.createEnrollment({ method: 'ott', identityId: 'ident1', expiresAt: '' });
    const replica = createPkiService({ config: { ...svcConfig, events: { ...svcConfig.events, reconcileIntervalMs: 1_000 } }, conn, bus: createMemoryBus(), log: silentLogger() });
    await replica.start();
    try {
      edgeRouters.delete('er2');
      identities.delete('ident3');
      const gone = (id: string) => client.getEnrollment({ id }).then(() => false, (err: { code?: string }) => err.code === 'NOT_FOUND');
      await expect.poll(async () => (await gone(router.id)) && (await gone(identity.id)), { timeout: 10_000 }).toBe(true);
      expect(await gone(kept.id)).toBe(false);
    } finally {
      await replica.stop();
    }
  });
});

// Caches of an identity's (or router's) outstanding enrollments drop its entry when they hear of it.
describe('enrollment events', () => {
  const seen: Array<{ subject: string; data: Record<string, string | null> }> = [];
  const of = (owner: string) => seen.filter((e) => e.data.identityId === owner || e.data.edgeRouterId === owner);
  const event = (what: string, id: string, owner: { identityId?: string; edgeRouterId?: string }) => ({
    subject: `edge.pki.enrollment.${what}`, data: { id, identityId: null, edgeRouterId: null, transitRouterId: null, ...owner },
  });
  beforeAll(async () => {
    await bus.subscribe<Record<string, string | null>>('edge.pki.enrollment.>', async (m) => { seen.push({ subject: m.subject, data: m.data }); });
  });

  it('announce an enrollment created, refreshed and deleted, with its identity', async () => {
    const e = await client.createEnrollment({ method: 'ott', identityId: 'ev1', expiresAt: '' });
    await client.refreshEnrollment({ id: e.id, expiresAt: new Date(Date.now() + 3600_000).toISOString() });
    await client.deleteEnrollment({ id: e.id });
    await vi.waitFor(() => expect(of('ev1')).toEqual(['created', 'updated', 'deleted'].map((what) => event(what, e.id, { identityId: 'ev1' }))));
  });

  it('announce an enrollment redeemed', async () => {
    const e = await client.createEnrollment({ method: 'updb', identityId: 'ev2', username: 'ev2-user', expiresAt: '' });
    await client.enrollUpdb({ token: e.token, password: 'long enough' });
    await vi.waitFor(() => expect(of('ev2')).toEqual([event('created', e.id, { identityId: 'ev2' }), event('deleted', e.id, { identityId: 'ev2' })]));
  });

  it('announce each enrollment a deleted identity takes with it', async () => {
    const ott = await client.createEnrollment({ method: 'ott', identityId: 'ev3', expiresAt: '' });
    const updb = await client.createEnrollment({ method: 'updb', identityId: 'ev3', username: 'ev3-user', expiresAt: '' });
    await bus.publish('edge.identity.identity.deleted', { id: 'ev3' });
    await vi.waitFor(() => expect(of('ev3').filter((e) => e.subject.endsWith('.deleted')).map((e) => e.data.id).sort()).toEqual([ott.id, updb.id].sort()));
    expect(of('ev3')).toContainEqual(event('deleted', ott.id, { identityId: 'ev3' }));
  });

  it('announce the enrollment a router re-enrollment replaces, with the router', async () => {
    const first = await client.replaceRouterEnrollment({ kind: 'edge', routerId: 'er3' });
    const second = await client.replaceRouterEnrollment({ kind: 'edge', routerId: 'er3' });
    await vi.waitFor(() => expect(of('er3')).toEqual([
      event('created', first.id, { edgeRouterId: 'er3' }), event('deleted', first.id, { edgeRouterId: 'er3' }), event('created', second.id, { edgeRouterId: 'er3' }),
    ]));
  });

  it('announce nothing for a refused enrollment', async () => {
    const e = await client.createEnrollment({ method: 'ott', identityId: 'ev1', expiresAt: '' });
    await expect(client.createEnrollment({ method: 'ott', identityId: 'ev1', expiresAt: '' })).rejects.toMatchObject({ code: 'ENROLLMENT_EXISTS' });
    // Events leave in the order they were recorded: once this delete's arrived, the refused write's would have.
    await client.deleteEnrollment({ id: e.id });
    await vi.waitFor(() => expect(of('ev1').slice(-2)).toEqual([event('created', e.id, { identityId: 'ev1' }), event('deleted', e.id, { identityId: 'ev1' })]));
    expect(of('ev1')).toHaveLength(5);
  });
});

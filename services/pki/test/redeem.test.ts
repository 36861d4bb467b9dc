/**
 * Redeeming enrollment tokens on both databases the service runs on: a Postgres pool and the
 * embedded PGlite of standalone mode, whose one session the services of the process share. The
 * identity and auth services are small stand-ins that, like the real ones in standalone mode,
 * answer from that same database.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryBus } from '@edge/bus';
import { loadConfig } from '@edge/config';
import { dropSchema, openConnection, type DbConnection } from '@edge/db';
import { notFound, ZitiError } from '@edge/errors';
import type { EdgeService } from '@edge/lifecycle';
import { silentLogger } from '@edge/logging';
import { createTeardown, testPrefix, TEST_DIR_PREFIX } from '@edge/testing';
import { contracts, type AuthServiceHandlers, type IdentityServiceHandlers, type PkiServiceClient } from '@edge/proto';
import { createRpcClient, type RpcClient } from '@edge/rpc';
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPkiService } from '../src/index.js';
import { createFakes, makeCsr } from './support.js';

const DATABASE_URL = process.env.EDGE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dataDir = mkdtempSync(join(tmpdir(), `${TEST_DIR_PREFIX}pki-redeem-`));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const csr = (cn: string) => makeCsr(dataDir, cn);

const backends: Array<[string, () => Promise<DbConnection>]> = [
  ['postgres', () => openConnection({ url: DATABASE_URL, poolSize: 5 })],
  ['pglite', () => openConnection({ dataDir: ':memory:' })],
];

describe.each(backends)('redeeming on %s', (_kind, open) => {
  const prefix = `${testPrefix()}_`;
  // What this backend's set-up makes is removed after it, also when it fails half-way.
  const teardown = createTeardown();
  const identities = new Set(['i-plain', 'i-race', 'i-flaky', 'i-gone']);
  const created: string[] = [];
  /** Identities whose next authenticator creation fails as if the auth service were down. */
  const failOnce = new Set<string>();
  const bus = createMemoryBus();
  /** The enrollment events, as `<what> <identityId>`. */
  const announced: string[] = [];
  let conn: DbConnection;
  let svc: EdgeService;
  const fakes = createFakes();
  let client: RpcClient<PkiServiceClient>;

  /** A query on the shared database, as the real services make when they answer. */
  const touchDatabase = async () => {
    const db = new Kysely<unknown>({ dialect: conn.dialect() });
    await sql`select 1`.execute(db);
  };

  beforeAll(async () => {
    conn = await open();
    teardown.add(() => conn.close());
    teardown.add(() => dropSchema(conn, `${prefix}pki`));
    teardown.add(() => fakes.stop());
    const identityAddr = await fakes.add<IdentityServiceHandlers>('identity', contracts.identity(), {
      async GetIdentity(req) {
        await touchDatabase();
        if (!identities.has(req.id)) throw notFound('identity', req.id);
        return { id: req.id } as never;
      },
      async GetIdentities(req) {
        return { identities: req.ids.filter((i) => identities.has(i)).map((id) => ({ id }) as never) };
      },
    });
    const authAddr = await fakes.add<AuthServiceHandlers>('auth', contracts.auth(), {
      async CreateCertAuthenticator(req) {
        await touchDatabase();
        if (!identities.has(req.identityId)) throw notFound('identity', req.identityId);
        if (failOnce.delete(req.identityId)) throw new ZitiError('UNAVAILABLE');
        created.push(req.identityId);
        return { id: `a-${req.identityId}` };
      },
    });
    const config = loadConfig({
      EDGE_DATABASE_SCHEMA_PREFIX: prefix, EDGE_GRPC_LISTEN_ADDR: '127.0.0.1:0', EDGE_DATA_DIR: dataDir,
      EDGE_KEY_ENCRYPTION_KEY: randomBytes(32).toString('hex'), EDGE_SHUTDOWN_GRACE_MS: '500',
      EDGE_IDENTITY_GRPC_ADDR: identityAddr, EDGE_AUTH_GRPC_ADDR: authAddr,
    });
    await bus.subscribe<{ identityId: string }>('edge.pki.enrollment.>', async (m) => { announced.push(`${m.subject.split('.').pop()} ${m.data.identityId}`); });
    svc = createPkiService({ config, conn, bus, log: silentLogger() });
    teardown.add(() => svc.stop());
    await svc.start();
    client = createRpcClient(contracts.pki(), `127.0.0.1:${svc.port()}`, { deadlineMs: 5000 });
    teardown.add(() => client.close());
  });

  afterAll(() => teardown.run());

  const ott = (identityId: string) => client.createEnrollment({ method: 'ott', identityId, expiresAt: '' });
  const redeem = (token: string) => client.enrollWithCsr({ method: 'ott', token, clientCsrPem: csr('x'), serverCsrPem: '' });

  // Regression: the redemption held a transaction, and with it the only embedded session, while
  // it read the signing keys and called the auth service, which waited for that session.
  it('completes an ott enrollment while the auth service answers from the same database', async () => {
    const e = await ott('i-plain');
    const certs = await redeem(e.token);
    expect(certs.cert).toContain('BEGIN CERTIFICATE');
    expect(created).toContain('i-plain');
    await expect(client.getEnrollment({ id: e.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lets exactly one of concurrent redemptions of a token win', async () => {
    const e = await ott('i-race');
    const csrPem = csr('x');
    const results = await Promise.allSettled(Array.from({ length: 5 }, () =>
      client.enrollWithCsr({ method: 'ott', token: e.token, clientCsrPem: csrPem, serverCsrPem: '' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((x) => x.status === 'rejected')) expect(r.reason).toMatchObject({ code: 'INVALID_ENROLLMENT_TOKEN' });
    expect(created.filter((i) => i === 'i-race')).toHaveLength(1);
  });

  it('puts the enrollment back when the auth service fails, so the token works on a retry', async () => {
    const e = await ott('i-flaky');
    failOnce.add('i-flaky');
    await expect(redeem(e.token)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(await client.getEnrollment({ id: e.id })).toMatchObject({ id: e.id, token: e.token, createdAt: e.createdAt });
    await redeem(e.token);
    expect(created).toContain('i-flaky');
    // claimed, put back, claimed for good: a cache of the identity's enrollments hears each
    await vi.waitFor(() => expect(announced.filter((a) => a.endsWith(' i-flaky'))).toEqual(['created', 'deleted', 'created', 'deleted'].map((w) => `${w} i-flaky`)));
  });

  it('does not put back the enrollment of an identity that went during the redemption', async () => {
    const e = await ott('i-gone');
    identities.delete('i-gone');
    await expect(redeem(e.token)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(client.getEnrollment({ id: e.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

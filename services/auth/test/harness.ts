/**
 * Test harness: the auth service on a real Postgres schema, a real NATS subject prefix and a
 * real gRPC port, with a small in-test identity service standing in for services/identity
 * (the only thing outside the process under test).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Bus } from '@edge/bus';
import type { Config } from '@edge/config';
import type { DbConnection } from '@edge/db';
import { notFound } from '@edge/errors';
import { newId } from '@edge/ids';
import type { EdgeService } from '@edge/lifecycle';
import { silentLogger } from '@edge/logging';
import { createServiceInfra, testPrefix, TEST_DIR_PREFIX, TEST_NATS_URL, withTeardown } from '@edge/testing';
import { contracts, type AuthServiceClient, type IdentityServiceHandlers, type PkiServiceHandlers, type identity } from '@edge/proto';
import { createRpcClient, createRpcServer, stubHandlers, type RpcClient, type RpcServer } from '@edge/rpc';
import type { Kysely } from 'kysely';
import { hashPassword } from '../src/domain/password.js';
import { createAuthService } from '../src/index.js';


/** An identity as the stand-in identity service holds it. */
export type FakeIdentity = identity.Identity;

/** The stand-in identity service: identities in a Map, calls recorded. */
export interface FakeIdentityService {
  identities: Map<string, FakeIdentity>;
  ensureDefaultAdminCalls: number;
  /** DisableIdentity calls (lockouts) in order. */
  disables: Array<{ id: string; durationMinutes: number }>;
  /** When set, DisableIdentity waits for it before disabling (a slow identity service). */
  disableGate?: Promise<void>;
  /** The controller CA chain the stand-in pki service answers GetCaCerts with. */
  caCertsPem: string;
  add(fields: Partial<FakeIdentity> & { name: string }): FakeIdentity;
  addr: string;
  server: RpcServer;
}

async function startFakeIdentityService(): Promise<FakeIdentityService> {
  const fake = { identities: new Map(), ensureDefaultAdminCalls: 0, disables: [], caCertsPem: '' } as unknown as FakeIdentityService;
  fake.add = (fields) => {
    const i: FakeIdentity = { id: newId(), isAdmin: false, isDefaultAdmin: false, disabled: false, updatedAt: new Date().toISOString(), ...fields };
    fake.identities.set(i.id!, i);
    return i;
  };
  const handlers = stubHandlers<IdentityServiceHandlers>({
    async GetIdentity(req) {
      const i = fake.identities.get(req.id);
      if (!i) throw notFound('identity', req.id);
      return i;
    },
    // The read model's fill: every identity in id order, after the id a filter `id > "…"` names.
    async ListIdentities(req) {
      const after = /^id > "(.*)"$/.exec(req.query?.filter ?? '')?.[1] ?? '';
      const all = [...fake.identities.values()].filter((i) => i.id! > after).sort((a, b) => (a.id! < b.id! ? -1 : 1));
      return { identities: all.slice(0, req.query?.limit || 500) };
    },
    async GetIdentities(req) {
      return { identities: req.ids.flatMap((id) => fake.identities.get(id) ?? []) };
    },
    async EnsureDefaultAdmin(req) {
      fake.ensureDefaultAdminCalls++;
      const existing = [...fake.identities.values()].find((i) => i.isDefaultAdmin);
      return existing ?? fake.add({ name: req.name, isAdmin: true, isDefaultAdmin: true });
    },
    async CountIdentitiesByAuthPolicy(req) {
      return { count: [...fake.identities.values()].filter((i) => i.authPolicyId === req.authPolicyId).length };
    },
    async DisableIdentity(req) {
      const i = fake.identities.get(req.id);
      if (!i) throw notFound('identity', req.id);
      fake.disables.push({ id: req.id, durationMinutes: req.durationMinutes });
      await fake.disableGate;
      i.disabled = true;
      i.updatedAt = new Date().toISOString();
      return {};
    },
    async EnableIdentity(req) {
      const i = fake.identities.get(req.id);
      if (i) Object.assign(i, { disabled: false, updatedAt: new Date().toISOString() });
      return {};
    },
  });
  fake.server = createRpcServer('identity', silentLogger());
  fake.server.add<IdentityServiceHandlers>(contracts.identity(), handlers);
  // The pki service as certificate login asks it: no certificate authority issued anything, and
  // the controller chain is what the test says.
  fake.server.add<PkiServiceHandlers>(contracts.pki(), stubHandlers<PkiServiceHandlers>({
    async MatchCertificateCa() {
      return { caId: '', externalId: '' };
    },
    async GetCaCerts() {
      return { pkcs7Base64: '', pem: fake.caCertsPem };
    },
  }));
  const port = await fake.server.listen('127.0.0.1:0');
  fake.server.setServing(true);
  fake.addr = `127.0.0.1:${port}`;
  return fake;
}

/** Everything one test file works with. */
export interface Harness {
  config: Config;
  conn: DbConnection;
  bus: Bus;
  /** Where the bus is, and the prefix of this file's subjects on it. */
  nats: { url: string; subjectPrefix: string };
  /** Raw access to the auth schema, for assertions and for ageing sessions. */
  db: Kysely<any>;
  identity: FakeIdentityService;
  /** An identity in the stand-in with a updb authenticator for `name` / `password`. */
  addUser(name: string, password: string, fields?: Partial<FakeIdentity>): Promise<FakeIdentity>;
  /**
   * Starts an auth service instance (a "replica"); stopped by `close`. `identityTarget` points
   * its identity client elsewhere (nowhere: an identity service that is down).
   */
  startAuth(opts?: { identityTarget?: string }): Promise<{ service: EdgeService; client: RpcClient<AuthServiceClient> }>;
  close(): Promise<void>;
}

/**
 * Sets up a fresh schema, subject prefix, data dir and identity stand-in; NATS at `natsUrl`
 * (default: the local one). A set-up that fails half-way removes what it made; `close` removes
 * everything (schema, stream, data dir).
 */
export async function createHarness(env: Record<string, string> = {}, prefix = testPrefix(), natsUrl = TEST_NATS_URL): Promise<Harness> {
  return withTeardown(async (teardown) => {
    const identity = await startFakeIdentityService();
    teardown.add(() => identity.server.stop(100));
    const dataDir = await mkdtemp(join(tmpdir(), `${TEST_DIR_PREFIX}${prefix}-auth-`));
    teardown.add(() => rm(dataDir, { recursive: true, force: true }));
    const { config, conn, bus, db } = await createServiceInfra(teardown, 'auth', prefix, {
      EDGE_IDENTITY_GRPC_ADDR: identity.addr, EDGE_PKI_GRPC_ADDR: identity.addr, EDGE_GRPC_DEADLINE_MS: '5000', EDGE_DATA_DIR: dataDir, ...env,
    }, natsUrl);

    return {
      config, conn, bus, db, identity, nats: { url: natsUrl, subjectPrefix: `${prefix}.` },
      async addUser(name, password, fields = {}) {
        const added = identity.add({ name, ...fields });
        await db.insertInto('authenticators').values({
          id: newId(), identity_id: added.id, method: 'updb', username: name, password_hash: await hashPassword(password),
        }).execute();
        return added;
      },
      async startAuth(opts = {}) {
        const targets = { ...config.grpc.targets, ...(opts.identityTarget ? { identity: opts.identityTarget } : {}) };
        const service = createAuthService({ config: { ...config, grpc: { ...config.grpc, targets } }, conn, bus, log: silentLogger() });
        // Stopped even when its start fails half-way (listening, consumers running).
        teardown.add(() => service.stop());
        await service.start();
        const client = createRpcClient(contracts.auth(), `127.0.0.1:${service.port()}`, { deadlineMs: 5000 });
        teardown.add(() => client.close());
        return { service, client };
      },
      close: () => teardown.run(),
    };
  });
}

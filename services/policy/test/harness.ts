/**
 * Test harness: the policy service on a real Postgres schema, a real NATS subject prefix and a
 * real gRPC port, with a small in-test identity service standing in for services/identity
 * (the only thing outside the process under test).
 */
import type { Bus } from '@edge/bus';
import { schemaName } from '@edge/config';
import type { EdgeService } from '@edge/lifecycle';
import { silentLogger } from '@edge/logging';
import { createServiceInfra, testPrefix, withTeardown } from '@edge/testing';
import { contracts, type IdentityServiceHandlers, type PolicyServiceClient, type identity } from '@edge/proto';
import { createRpcClient, createRpcServer, stubHandlers, type RpcClient, type RpcServer } from '@edge/rpc';
import type { Kysely } from 'kysely';
import { createPolicyService } from '../src/index.js';

/** Identities by id, answering the lookups the policy service makes. */
async function startFakeIdentityService(identities: Map<string, { id: string; name: string }>, routers: identity.Router[]): Promise<{ addr: string; server: RpcServer }> {
  const full = (i: { id: string; name: string }) => ({ id: i.id, name: i.name }) as identity.Identity;
  const handlers = stubHandlers<IdentityServiceHandlers>({
    // Edge routers in id order, all in one page (what the read model's fill asks).
    async ListRouters(req) {
      const page = req.query?.filter ? [] : [...routers].sort((a, b) => (a.id! < b.id! ? -1 : 1));
      return { routers: page, meta: { totalCount: page.length, limit: 500, offset: 0, filterableFields: [] } };
    },
    // No identity has configs of its own here.
    async ListServiceConfigs() {
      return { configs: [] };
    },
    async GetIdentities(req) {
      return { identities: req.ids.filter((id) => identities.has(id)).map((id) => full(identities.get(id)!)) };
    },
    async ListIdentities(req) {
      const refs = new Set((req.query?.roleFilter ?? []).map((r) => r.slice(1)));
      const found = [...identities.values()].filter((i) => refs.has(i.id) || refs.has(i.name));
      return { identities: found.map(full), meta: { totalCount: found.length, limit: 500, offset: 0, filterableFields: [] } };
    },
  });
  const server = createRpcServer('identity', silentLogger());
  server.add<IdentityServiceHandlers>(contracts.identity(), handlers);
  const port = await server.listen('127.0.0.1:0');
  server.setServing(true);
  return { addr: `127.0.0.1:${port}`, server };
}

/** Everything one test file works with. */
export interface Harness {
  client: RpcClient<PolicyServiceClient>;
  bus: Bus;
  /** Raw access to the policy schema, for bulk data and assertions (raw SQL names `schema`). */
  db: Kysely<any>;
  schema: string;
  identities: Map<string, { id: string; name: string }>;
  /** Stops the identity service stand-in (its calls fail from then on). */
  stopIdentity(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The policy service on a fresh schema and subject prefix. A set-up that fails half-way removes
 * what it made; `close` removes everything (schema and stream).
 */
export async function createHarness(opts: { edgeRouters?: identity.Router[]; env?: Record<string, string> } = {}): Promise<Harness> {
  const prefix = testPrefix();
  const identities = new Map<string, { id: string; name: string }>();
  return withTeardown(async (teardown) => {
    const fake = await startFakeIdentityService(identities, opts.edgeRouters ?? []);
    teardown.add(() => fake.server.stop(100));
    const { config, conn, bus, db } = await createServiceInfra(teardown, 'policy', prefix, { EDGE_IDENTITY_GRPC_ADDR: fake.addr, ...opts.env });
    const service: EdgeService = createPolicyService({ config, conn, bus, log: silentLogger() });
    teardown.add(() => service.stop());
    await service.start();
    const client = createRpcClient(contracts.policy(), `127.0.0.1:${service.port()}`, { deadlineMs: 20_000 });
    teardown.add(() => client.close());
    return {
      client, bus, db, identities, schema: schemaName(config, 'policy'), stopIdentity: () => fake.server.stop(100), close: () => teardown.run(),
    };
  });
}

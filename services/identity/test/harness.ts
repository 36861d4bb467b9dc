/**
 * Test harness: the identity service on a real Postgres schema, a real NATS subject prefix and a
 * real gRPC port, with small in-test auth, pki and policy services standing in for the owners of
 * auth policies, enrollments and configs (the only things outside the process under test). The
 * stand-ins record what they were asked.
 */
import type { Bus } from '@edge/bus';
import { fieldError, notFound } from '@edge/errors';
import { silentLogger } from '@edge/logging';
import { createServiceInfra, testPrefix, withTeardown } from '@edge/testing';
import {
  contracts, type AuthServiceHandlers, type IdentityServiceClient, type PkiServiceHandlers, type PolicyServiceHandlers,
} from '@edge/proto';
import { createRpcClient, createRpcServer, stubHandlers, type RpcClient, type RpcServer } from '@edge/rpc';
import type { Kysely } from 'kysely';
import { createIdentityService } from '../src/index.js';

/** What the stand-ins hold and what they were asked. */
export interface World {
  authPolicies: Set<string>;
  /** Config ids the policy service knows, with the kind of holder their type targets. */
  configs: Map<string, 'identity' | 'router'>;
  /** Every enrollment asked of the pki service. */
  enrollments: Array<{ identityId: string; method: string; caId: string; username: string }>;
  /** A CA id the pki service refuses (as an unknown CA). */
  refusedCa: string;
}

async function serve(world: World): Promise<{ addr: string; server: RpcServer }> {
  const server = createRpcServer('stand-ins', silentLogger());
  server.add<AuthServiceHandlers>(contracts.auth(), stubHandlers<AuthServiceHandlers>({
    async GetAuthPolicy(req) {
      if (!world.authPolicies.has(req.id)) throw notFound('authPolicy', req.id);
      return { id: req.id, name: req.id } as never;
    },
  }));
  server.add<PkiServiceHandlers>(contracts.pki(), stubHandlers<PkiServiceHandlers>({
    async CreateEnrollment(req) {
      if (req.method === 'ottca' && req.caId === world.refusedCa) throw fieldError('caId', 'no CA with this id', req.caId);
      world.enrollments.push({ identityId: req.identityId, method: req.method, caId: req.caId, username: req.username });
      return { id: `enrollment-${world.enrollments.length}` } as never;
    },
  }));
  server.add<PolicyServiceHandlers>(contracts.policy(), stubHandlers<PolicyServiceHandlers>({
    async CheckConfigs(req) {
      for (const id of req.configIds) {
        const holder = world.configs.get(id);
        if (!holder) throw notFound('config', id);
        if (holder !== req.holder) throw fieldError('configs', `config ${id} is not for a ${req.holder}`, id);
      }
      return {};
    },
    async ListServices() {
      return { services: [], meta: { totalCount: 0 } as never };
    },
    async ListConfigs() {
      return { configs: [], meta: { totalCount: 0 } as never };
    },
  }));
  const port = await server.listen('127.0.0.1:0');
  server.setServing(true);
  return { addr: `127.0.0.1:${port}`, server };
}

/** Everything one test file works with. */
export interface Harness {
  client: RpcClient<IdentityServiceClient>;
  bus: Bus;
  world: World;
  /** Raw access to the identity schema, for assertions. */
  db: Kysely<any>;
  close(): Promise<void>;
}

/**
 * The identity service on a fresh schema and subject prefix. A set-up that fails half-way removes
 * what it made; `close` removes everything (schema and stream).
 */
export async function createHarness(): Promise<Harness> {
  const world: World = { authPolicies: new Set(), configs: new Map(), enrollments: [], refusedCa: 'unknown-ca' };
  return withTeardown(async (teardown) => {
    const fake = await serve(world);
    teardown.add(() => fake.server.stop(100));
    const { config, conn, bus, db } = await createServiceInfra(teardown, 'identity', testPrefix(), {
      EDGE_AUTH_GRPC_ADDR: fake.addr, EDGE_PKI_GRPC_ADDR: fake.addr, EDGE_POLICY_GRPC_ADDR: fake.addr,
    });
    const service = createIdentityService({ config, conn, bus, log: silentLogger() });
    teardown.add(() => service.stop());
    await service.start();
    const client = createRpcClient(contracts.identity(), `127.0.0.1:${service.port()}`, { deadlineMs: 20_000 });
    teardown.add(() => client.close());
    return { client, bus, world, db, close: () => teardown.run() };
  });
}

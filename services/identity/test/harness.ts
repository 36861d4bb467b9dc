/**
 * Test harness: the identity service on a real Postgres schema, a real NATS subject prefix and a
 * real gRPC port. The identity service calls no other service (auth policies, enrollments and
 * router configs are checked or made by its callers), so the other services' addresses point
 * nowhere: a call to one would fail the test.
 */
import type { Bus } from '@edge/bus';
import { schemaName } from '@edge/config';
import type { DbConnection } from '@edge/db';
import { silentLogger } from '@edge/logging';
import { createServiceInfra, testPrefix, withTeardown } from '@edge/testing';
import { contracts, type IdentityServiceClient } from '@edge/proto';
import { createRpcClient, type RpcClient } from '@edge/rpc';
import type { Kysely } from 'kysely';
import { createIdentityService } from '../src/index.js';

/** An address where no service answers. */
const NOWHERE = '127.0.0.1:1';

/** Everything one test file works with. */
export interface Harness {
  client: RpcClient<IdentityServiceClient>;
  bus: Bus;
  /** Raw access to the identity schema, for assertions. */
  db: Kysely<any>;
  /** The connection and schema under `db`, for a Kysely of a test's own (one that logs its statements). */
  conn: DbConnection;
  schema: string;
  close(): Promise<void>;
}

/**
 * The identity service on a fresh schema and subject prefix. A set-up that fails half-way removes
 * what it made; `close` removes everything (schema and stream).
 */
export async function createHarness(): Promise<Harness> {
  return withTeardown(async (teardown) => {
    const { config, conn, bus, db } = await createServiceInfra(teardown, 'identity', testPrefix(), {
      EDGE_AUTH_GRPC_ADDR: NOWHERE, EDGE_PKI_GRPC_ADDR: NOWHERE, EDGE_POLICY_GRPC_ADDR: NOWHERE,
    });
    const service = createIdentityService({ config, conn, bus, log: silentLogger() });
    teardown.add(() => service.stop());
    await service.start();
    const client = createRpcClient(contracts.identity(), `127.0.0.1:${service.port()}`, { deadlineMs: 20_000 });
    teardown.add(() => client.close());
    return { client, bus, db, conn, schema: schemaName(config, 'identity'), close: () => teardown.run() };
  });
}

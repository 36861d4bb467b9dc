/**
 * Where tests find Postgres and NATS (ARCHITECTURE.md): EDGE_TEST_DATABASE_URL /
 * EDGE_TEST_NATS_URL when set, else the local services.
 */
import { testPrefix, type TestInfra } from '@edge/testing';

export const TEST_DATABASE_URL = process.env.EDGE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_NATS_URL = process.env.EDGE_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
export const TEST_INFRA: TestInfra = { databaseUrl: TEST_DATABASE_URL, natsUrl: TEST_NATS_URL };

/**
 * A prefix unique to one test file, for schemas and subjects; it names when it was made, so
 * the sweep at the start of a run (global-setup.ts) can drop it should this run crash.
 */
export function uniquePrefix(): string {
  return testPrefix();
}

/** A TCP port that was free a moment ago, below the ephemeral range. */
export { freePort } from '@edge/testing';

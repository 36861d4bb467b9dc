/**
 * Where tests find Postgres and NATS (ARCHITECTURE.md): EDGE_TEST_DATABASE_URL /
 * EDGE_TEST_NATS_URL when set, else the local services.
 */
import { randomBytes } from 'node:crypto';

export const TEST_DATABASE_URL = process.env.EDGE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_NATS_URL = process.env.EDGE_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** A prefix unique to one test file, for schemas and subjects. */
export function uniquePrefix(): string {
  return `t${randomBytes(4).toString('hex')}`;
}

/** A TCP port that was free a moment ago, below the ephemeral range. */
export { freePort } from '@edge/testing';

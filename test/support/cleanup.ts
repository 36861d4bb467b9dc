/**
 * Removes what a test file created in the shared Postgres and NATS: its schemas and its stream.
 */
import { dropTestPrefix } from '@edge/testing';
import { TEST_INFRA } from './infra.js';

export async function cleanupPrefix(prefix: string): Promise<void> {
  await dropTestPrefix(TEST_INFRA, prefix);
}

/**
 * Removes what a test file created in the shared Postgres and NATS: its schemas and its stream.
 */
import { SERVICE_NAMES } from '@edge/config';
import { dropSchema, openConnection } from '@edge/db';
import { connect } from 'nats';
import { TEST_DATABASE_URL, TEST_NATS_URL } from './infra.js';

export async function cleanupPrefix(prefix: string): Promise<void> {
  const conn = await openConnection({ url: TEST_DATABASE_URL, poolSize: 1 });
  try {
    for (const s of SERVICE_NAMES) await dropSchema(conn, `${prefix}_${s}`);
  } finally {
    await conn.close();
  }
  const nc = await connect({ servers: TEST_NATS_URL });
  try {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(`EDGE_${prefix}`).catch(() => undefined);
  } finally {
    await nc.close();
  }
}

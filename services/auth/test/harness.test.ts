/**
 * The harness removes what it made, also when a set-up fails half-way: no data directory,
 * schema or stream of its prefix stays in the shared Postgres, NATS and temporary directory.
 */
import { createServer, type Server } from 'node:net';
import { testPrefix, testPrefixRemains } from '@edge/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness } from './harness.js';

const DATABASE_URL = process.env.EDGE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.EDGE_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

const leftovers = (prefix: string) => testPrefixRemains({ databaseUrl: DATABASE_URL, natsUrl: NATS_URL }, prefix);

describe('auth test harness', () => {
  let taken: Server;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it('removes its data directory when its configuration is refused', async () => {
    const prefix = testPrefix();
    await expect(createHarness({ EDGE_GRPC_DEADLINE_MS: 'soon' }, prefix)).rejects.toThrow(/EDGE_GRPC_DEADLINE_MS/);
    expect(await leftovers(prefix)).toEqual({ schemas: [], stream: false, dirs: [] });
  });

  it('removes schema, stream and data directory after a service that failed to start', async () => {
    const prefix = testPrefix();
    const port = (taken.address() as { port: number }).port;
    const h = await createHarness({ EDGE_GRPC_LISTEN_ADDR: `127.0.0.1:${port}` }, prefix);
    // The service migrates its schema and starts its consumers, then finds its port taken.
    await expect(h.startAuth()).rejects.toThrow();
    expect((await leftovers(prefix)).schemas).toEqual([`${prefix}_auth`]);
    await h.close();
    expect(await leftovers(prefix)).toEqual({ schemas: [], stream: false, dirs: [] });
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryBus } from '@edge/bus';
import { loadConfig } from '@edge/config';
import { openConnection, type DbConnection } from '@edge/db';
import { silentLogger } from '@edge/logging';
import { contracts } from '@edge/proto';
import { createRpcClient } from '@edge/rpc';
import { createGrpcService, type SetupArgs } from './grpc-service.js';
import type { ServiceContext } from './infra.js';

// No migrations: the order of start and stop is what is tested, on the embedded database.
const migrations = mkdtempSync(join(tmpdir(), 'grpc-service-test-'));
let conn: DbConnection;
let ctx: ServiceContext;

beforeAll(async () => {
  conn = await openConnection({ dataDir: ':memory:' });
  const config = loadConfig({ EDGE_GRPC_LISTEN_ADDR: '127.0.0.1:0', EDGE_SHUTDOWN_GRACE_MS: '100', EDGE_GRPC_TLS: 'off' });
  ctx = { config, conn, bus: createMemoryBus(), log: silentLogger() };
});
afterAll(async () => {
  await conn.close();
  rmSync(migrations, { recursive: true, force: true });
});

/**
 * The health of the server on `port`, or `unreachable` when nothing answers in time. A stopped
 * server refuses the connection at once; a busy machine can take more than a few hundred ms to
 * answer the first call of a new channel, so the deadline is generous.
 */
async function health(port: number): Promise<string> {
  const client = createRpcClient(contracts.health(), `127.0.0.1:${port}`, { deadlineMs: 3_000, tls: null, serverName: 'auth' });
  try {
    return (await client.check({ service: '' })).status;
  } catch {
    return 'unreachable';
  } finally {
    client.close();
  }
}

describe('a gRPC service', () => {
  it('starts setup → listen → serving steps, and stops them in reverse with the server between', async () => {
    const events: string[] = [];
    let port = 0;
    const service = createGrpcService(ctx, 'auth', migrations, async ({ defer, whenServing, signal }: SetupArgs<unknown>) => {
      events.push('setup');
      signal.addEventListener('abort', () => events.push('aborted'));
      defer(() => events.push('first setup step stopped'));
      defer(() => events.push('second setup step stopped'));
      whenServing(() => {
        events.push('serving step');
        defer(async () => events.push(`serving step stopped: ${await health(port)}`));
      });
      return async () => events.push(`teardown: ${await health(port)}`);
    });
    await service.start();
    port = service.port();
    expect(await health(port)).toBe('SERVING');
    expect(events).toEqual(['setup', 'serving step']);

    await service.stop();
    expect(events.slice(2)).toEqual([
      'aborted',
      'serving step stopped: SERVING',
      'teardown: unreachable',
      'second setup step stopped',
      'first setup step stopped',
    ]);
  });

  it('stops what a failed start had set up, and starts again with a fresh signal', async () => {
    const events: string[] = [];
    let fail = true;
    const service = createGrpcService(ctx, 'pki', migrations, async ({ defer, signal }) => {
      events.push(`setup, aborted: ${signal.aborted}`);
      defer(() => events.push('step stopped'));
      if (fail) throw new Error('start failed');
    });
    await expect(service.start()).rejects.toThrow('start failed');
    await service.stop();
    expect(events).toEqual(['setup, aborted: false', 'step stopped']);

    fail = false;
    await service.start();
    expect(await health(service.port())).toBe('SERVING');
    await service.stop();
    expect(events.slice(2)).toEqual(['setup, aborted: false', 'step stopped']);
  });
});

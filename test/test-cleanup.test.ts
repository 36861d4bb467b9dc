/**
 * Tests clean up after themselves also when their set-up fails half-way: a controller that
 * cannot start leaves no schema, stream or data directory in the shared Postgres, NATS and
 * temporary directory, and a test file whose set-up fails ends at once rather than waiting for
 * a hook timeout.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPrefixRemains } from '@edge/testing';
import { startTestController, TEST_BACKEND } from './support/controller.js';
import { TEST_INFRA, uniquePrefix } from './support/infra.js';

/** Runs vitest in its own process group, all of which is killed should it outlast `timeoutMs`. */
function vitest(args: string[], env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', ...args], { env: { ...process.env, ...env }, detached: true });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d));
  child.stderr.on('data', (d: Buffer) => (output += d));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
  return new Promise((resolve) => child.on('close', (code) => {
    clearTimeout(timer);
    resolve({ code, output });
  }));
}

const leftovers = (prefix: string) => testPrefixRemains(TEST_INFRA, prefix);

describe.skipIf(TEST_BACKEND === 'embedded')('a test set-up that fails half-way', () => {
  let taken: Server;
  let port: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it('leaves no schema, stream or data directory when the controller cannot start', async () => {
    const prefix = uniquePrefix();
    // The bus makes the stream and the services before it migrate their schemas before the
    // session service, last to start, finds its port taken (a taken HTTPS port is found before
    // anything starts).
    await expect(startTestController({ prefix, env: { EDGE_SESSION_GRPC_ADDR: `127.0.0.1:${port}` } })).rejects.toThrow(/EADDRINUSE/);
    expect(await leftovers(prefix)).toEqual({ schemas: [], stream: false, dirs: [] });
  });

  it('ends a test file at once instead of waiting for its after-all hook to time out', async () => {
    const started = Date.now();
    // ext-jwt.test.ts starts a controller and a JWKS server before its tests; without the
    // specs the first fails, so the second never starts.
    const run = await vitest(['run', '--project', 'postgres', '--reporter', 'dot', 'test/client/ext-jwt.test.ts'], { EDGE_SPEC_DIR: '/nonexistent' }, 100_000);
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain('has no client.yml');
    expect(run.output).not.toContain('Hook timed out');
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 120_000);
});

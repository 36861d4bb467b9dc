/**
 * A NATS server with JetStream started by a test on a spare port, which the test can stop and
 * start again (same port, same store) to take the bus away from the code under test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

/** Where tests find the server binary (`EDGE_TEST_NATS_SERVER` overrides). */
const NATS_SERVER = process.env.EDGE_TEST_NATS_SERVER ?? '/usr/sbin/nats-server';

/** A NATS server a test controls. */
export interface TestNatsServer {
  /** nats://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  /** Kills the server (SIGKILL: no goodbye to the clients) and waits for its exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port and store; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and removes its store. */
  close(): Promise<void>;
}

async function accepting(port: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`nats-server on port ${port} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts `nats-server -js` on a free port with a store in a temporary directory. */
export async function startNatsServer(): Promise<TestNatsServer> {
  const port = await freePort();
  const storeDir = await mkdtemp(join(tmpdir(), 'edge-nats-'));
  let child: ChildProcess | undefined;
  const server: TestNatsServer = {
    url: `nats://127.0.0.1:${port}`,
    port,
    async start() {
      if (child) return;
      child = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: 'ignore' });
      await accepting(port, 10_000);
    },
    async stop() {
      const running = child;
      if (!running) return;
      child = undefined;
      if (running.exitCode !== null) return;
      await new Promise((resolve) => {
        running.once('exit', resolve);
        running.kill('SIGKILL');
      });
    },
    async close() {
      await server.stop();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

/**
 * Starts the whole controller in this process against real Postgres and NATS (a fresh schema
 * prefix and subject prefix per call), or on the embedded database and in-process bus of
 * `npm start` when EDGE_TEST_BACKEND=embedded (the `embedded` project of vitest.config.ts), and
 * hands back an HTTPS client that validates every response against the official specs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, schemaName, type ServiceName } from '@edge/config';
import { executeSql } from '@edge/db';
import { silentLogger, type Logger } from '@edge/logging';
import { startStandalone, type RunningController } from '@edge/launcher';
import { createHttpClient, loadSpecValidator, TEST_DIR_PREFIX, withTeardown, type HttpClient } from '@edge/testing';
import { TEST_DATABASE_URL, TEST_NATS_URL, uniquePrefix } from './infra.js';
import { cleanupPrefix } from './cleanup.js';

export const ADMIN = { username: 'admin', password: 'admin-password-1' };

export interface TestController {
  running: RunningController;
  http: HttpClient;
  prefix: string;
  dataDir: string;
  /** Where the data lives: Postgres and NATS, or the embedded database and in-process bus. */
  backend: 'postgres' | 'embedded';
  /** The quoted schema of a service, for `query`. */
  schema(service: ServiceName): string;
  /** Runs SQL on the controller's own database, for state no API reaches. */
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  /** Logs in and returns the zt-session token. */
  login(username?: string, password?: string): Promise<string>;
  /** Stops the whole controller and starts it again on the same database, bus and data dir. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The backend of this run: EDGE_TEST_BACKEND=embedded, else Postgres and NATS. */
export const TEST_BACKEND: TestController['backend'] = process.env.EDGE_TEST_BACKEND === 'embedded' ? 'embedded' : 'postgres';

export interface TestControllerOptions {
  /** Embedded PGlite in dataDir and the in-process bus instead of Postgres and NATS (default: TEST_BACKEND). */
  embedded?: boolean;
  /** A data directory the caller owns (and removes); default a fresh one removed by stop(). */
  dataDir?: string;
  env?: Record<string, string>;
  /** The schema and subject prefix (default a fresh {@link uniquePrefix}). */
  prefix?: string;
  /** Where the controller logs (default nowhere). */
  log?: Logger;
}

/**
 * Starts a controller for one test file. Should the start fail half-way, whatever it made is
 * removed again (schemas, stream, data directory) before the error is thrown; `stop()` removes
 * everything once the file is done.
 */
export async function startTestController(opts: TestControllerOptions = {}): Promise<TestController> {
  const prefix = opts.prefix ?? uniquePrefix();
  const embedded = opts.embedded ?? TEST_BACKEND === 'embedded';
  const log = opts.log ?? silentLogger();
  return withTeardown(async (teardown) => {
    const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), `${TEST_DIR_PREFIX}${prefix}-`));
    if (!opts.dataDir) teardown.add(() => rmSync(dataDir, { recursive: true, force: true }));
    const env: Record<string, string> = {
      EDGE_DATA_DIR: dataDir,
      EDGE_HTTP_ADDR: '127.0.0.1:0',
      EDGE_ADMIN_USERNAME: ADMIN.username,
      EDGE_ADMIN_PASSWORD: ADMIN.password,
      EDGE_LOG_LEVEL: 'silent',
      EDGE_SHUTDOWN_GRACE_MS: '2000',
      ...opts.env,
    };
    if (!embedded) {
      env.EDGE_DATABASE_URL = TEST_DATABASE_URL;
      env.EDGE_DATABASE_SCHEMA_PREFIX = `${prefix}_`;
      env.EDGE_NATS_URL = opts.env?.EDGE_NATS_URL ?? TEST_NATS_URL;
      env.EDGE_NATS_SUBJECT_PREFIX = `${prefix}.`;
      teardown.add(() => cleanupPrefix(prefix));
    }
    // No EDGE_<SERVICE>_GRPC_ADDR: the services bind ports the OS picks, as npm start does.
    const config = loadConfig(env);
    // Before anything starts: without the specs there is nothing to check answers against.
    const validator = loadSpecValidator();
    const connect = (r: RunningController) => createHttpClient({ baseUrl: r.url, ca: r.caPem, validator });
    // The controller running now, if any: a restart that failed to start leaves none to stop.
    let live: RunningController | undefined = await startStandalone(config, log);
    teardown.add(() => live?.stop());
    const c: TestController = {
      running: live,
      http: connect(live),
      prefix,
      dataDir,
      backend: embedded ? 'embedded' : 'postgres',
      schema: (service) => `"${schemaName(c.running.config, service)}"`,
      query: (text, params = []) => executeSql(c.running.conn, text, params),
      async login(username = ADMIN.username, password = ADMIN.password) {
        const r = await c.http.post('/edge/management/v1/authenticate?method=password', { body: { username, password }, expectStatus: 200 });
        return r.body.data.token as string;
      },
      async restart() {
        c.http.close();
        const stopping = live!;
        live = undefined;
        await stopping.stop();
        c.running = live = await startStandalone(c.running.config, log);
        c.http = connect(c.running);
      },
      stop: () => teardown.run(),
    };
    teardown.add(() => c.http.close());
    return c;
  });
}

/** A controller started for the whole test file, and a logged-in admin session on it. */
export interface ControllerFixture {
  c: TestController;
  admin: string;
}

/**
 * Starts a controller before the file's tests (handing it and an admin session to `ready`) and
 * stops it after them.
 */
export function useController(ready: (f: ControllerFixture) => void, opts: TestControllerOptions = {}): void {
  let c: TestController | undefined;
  beforeAll(async () => {
    c = await startTestController(opts);
    ready({ c, admin: await c.login() });
  });
  afterAll(async () => c?.stop());
}

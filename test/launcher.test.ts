/**
 * What an operator sees from `node deploy/launcher/dist/main.js` (npm start) and the service
 * processes: usage instead of a controller for --help or a mistyped mode, one line naming the
 * variable and its value for a bad setting, a port in use or an unreachable database or NATS,
 * and two standalone controllers side by side on one host.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createHttpClient, freePortBlock } from '@edge/testing';
import { freePort } from './support/infra.js';

const launcher = fileURLToPath(new URL('../deploy/launcher/dist/main.js', import.meta.url));
const serviceMain = (name: string) => fileURLToPath(new URL(`../services/${name}/dist/main.js`, import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'edge-launcher-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let dirs = 0;
/** A data dir path that does not exist yet: if it exists afterwards, a controller started. */
const freshDataDir = () => join(tmp, `data-${dirs++}`);

function run(script: string, args: string[], env: Record<string, string> = {}) {
  const dataDir = env.EDGE_DATA_DIR ?? freshDataDir();
  const r = spawnSync(process.execPath, [script, ...args], {
    env: { PATH: process.env.PATH, EDGE_DATA_DIR: dataDir, EDGE_LOG_LEVEL: 'warn', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { ...r, dataDir, started: existsSync(dataDir) };
}

const NO_STACK = /^\s+at /m;

describe('the command line', () => {
  it('prints the usage for --help and starts nothing', () => {
    for (const [script, words] of [[launcher, ['standalone', 'cluster', 'import']], [serviceMain('gateway'), ['serve']], [serviceMain('auth'), ['serve', 'migrate']]] as const) {
      const r = run(script, ['--help']);
      expect(r.status, r.stderr).toBe(0);
      for (const w of words) expect(r.stdout).toContain(w);
      expect(r.stdout).toMatch(/^usage: /);
      expect(r.started).toBe(false);
    }
  });

  it('refuses a mistyped mode with the usage and exit code 2, and starts nothing', () => {
    for (const script of [launcher, serviceMain('gateway')]) {
      const r = run(script, ['standalon']);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('unknown command or argument "standalon"');
      expect(r.stderr).toContain('usage: ');
      expect(r.started).toBe(false);
    }
    const extra = run(launcher, ['standalone', '--verbose']);
    expect(extra.status).toBe(2);
    expect(extra.stderr).toContain('unknown command or argument "--verbose"');
    expect(extra.started).toBe(false);
  });
});

describe('npm start', () => {
  it('reports the build it runs first on a line or two, then hands the arguments to the launcher', () => {
    const start = fileURLToPath(new URL('../scripts/start.mjs', import.meta.url));
    const root = fileURLToPath(new URL('..', import.meta.url));
    const r = spawnSync(process.execPath, [start, 'standalone', '--no-such-flag'], { cwd: root, env: { PATH: process.env.PATH, EDGE_DATA_DIR: freshDataDir() }, encoding: 'utf8', timeout: 240_000 });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^building \(incremental tsc -b\)…\nbuilt \d+ workspaces in [\d.]+ s\n/);
    expect(r.stderr).toContain('unknown command or argument "--no-such-flag"');
  }, 240_000);
});

describe('a bad setting', () => {
  it('ends start-up with one line naming the variable and its value, without a stack', () => {
    for (const script of [launcher, serviceMain('policy'), serviceMain('gateway')]) {
      const r = run(script, [], { EDGE_HTTP_ADDR: '127.0.0.1:99999' });
      expect(r.status).not.toBe(0);
      expect(r.stderr.trim().split('\n')).toEqual(['cannot start: invalid configuration: EDGE_HTTP_ADDR "127.0.0.1:99999": port must be 0-65535']);
      expect(r.started).toBe(false);
    }
  });

  it('never prints a secret it refuses', () => {
    const r = run(launcher, [], { EDGE_ADMIN_PASSWORD: 'Zq9' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('EDGE_ADMIN_PASSWORD (value hidden)');
    expect(r.stderr).not.toContain('Zq9');
  });
});

describe('what the settings point at', () => {
  let taken: Server;
  afterAll(() => taken?.close());

  it('names EDGE_HTTP_ADDR when its port is in use, before creating anything', async () => {
    taken = createServer();
    const port = await new Promise<number>((r) => taken.listen(0, '127.0.0.1', () => r((taken.address() as { port: number }).port)));
    const r = run(launcher, [], { EDGE_HTTP_ADDR: `127.0.0.1:${port}` });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(`cannot start: EDGE_HTTP_ADDR "127.0.0.1:${port}": address in use`);
    expect(r.started).toBe(false);
  });

  it('names EDGE_CLUSTER_BASE_PORT when a port of the cluster is taken, before starting a process', async () => {
    const base = await freePortBlock(60);
    const policyPort = base + 30;
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(policyPort, '127.0.0.1', r));
    try {
      const r = run(launcher, ['cluster'], { EDGE_HTTP_ADDR: `127.0.0.1:${await freePort()}`, EDGE_CLUSTER_BASE_PORT: String(base) });
      expect(r.status).toBe(1);
      expect(r.stderr.trim()).toBe(`cannot start: EDGE_CLUSTER_BASE_PORT "${base}": port ${policyPort} (policy-0) is in use`);
    } finally {
      busy.close();
    }
  });

  it('names EDGE_DATABASE_URL, password masked, when the database cannot be reached', async () => {
    const url = `postgres://edge:Sup3rS3cret@127.0.0.1:${await freePort()}/edge`;
    for (const script of [launcher, serviceMain('identity')]) {
      const r = run(script, [], { EDGE_DATABASE_URL: url });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`EDGE_DATABASE_URL "${url.replace('Sup3rS3cret', '***')}": connection refused`);
      expect(r.stderr).not.toContain('Sup3rS3cret');
      expect(r.stderr).not.toMatch(NO_STACK);
    }
  });

  it('names EDGE_NATS_URL when NATS cannot be reached', async () => {
    const url = `nats://127.0.0.1:${await freePort()}`;
    const r = run(serviceMain('gateway'), [], { EDGE_NATS_URL: url });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(`cannot start: EDGE_NATS_URL "${url}": connection refused`);
  });
});

describe('two standalone controllers on one host', () => {
  const procs: ChildProcess[] = [];
  afterAll(async () => {
    await Promise.all(procs.map((p) => (p.exitCode === null ? new Promise((r) => { p.once('exit', r); p.kill('SIGTERM'); }) : undefined)));
  });

  /** Starts `npm start`'s launcher and resolves with its output once it says it is ready. */
  function start(port: number, env: Record<string, string>): Promise<{ proc: ChildProcess; output: () => string }> {
    const proc = spawn(process.execPath, [launcher], {
      env: { PATH: process.env.PATH, EDGE_DATA_DIR: freshDataDir(), EDGE_HTTP_ADDR: `127.0.0.1:${port}`, EDGE_LOG_LEVEL: 'info', EDGE_SHUTDOWN_GRACE_MS: '2000', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    procs.push(proc);
    let out = '';
    proc.stdout!.on('data', (d) => (out += d));
    proc.stderr!.on('data', (d) => (out += d));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready:\n${out.slice(-3000)}`)), 90_000);
      proc.stdout!.on('data', () => {
        if (out.includes('edge controller ready at')) {
          clearTimeout(timer);
          resolve({ proc, output: () => out });
        }
      });
      proc.once('exit', (code) => reject(new Error(`exited ${code}:\n${out.slice(-3000)}`)));
    });
  }

  it('both run and answer, with the default gRPC settings (standalone used fixed ports 50051-50055)', async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    const [a, b] = await Promise.all([start(portA, {}), start(portB, { EDGE_LOG_FORMAT: 'pretty' })]);
    for (const port of [portA, portB]) {
      const http = createHttpClient({ baseUrl: `https://127.0.0.1:${port}` });
      try {
        expect((await http.get('/edge/client/v1/version', { skipValidation: true })).status).toBe(200);
      } finally {
        http.close();
      }
    }
    // The banner says where the generated admin password is.
    expect(a.output()).toMatch(/admin "admin", generated password in \S+admin-credentials\.txt/);
    // Piped output is JSON lines unless asked otherwise; pretty is for people.
    const jsonLines = a.output().split('\n').filter((l) => l.startsWith('{'));
    expect(jsonLines.length).toBeGreaterThan(0);
    for (const l of jsonLines) expect(JSON.parse(l)).toHaveProperty('msg');
    expect(b.output()).toMatch(/INFO.*: gateway listening/);
    expect(b.output().split('\n').some((l) => l.startsWith('{'))).toBe(false);
  }, 120_000);
});

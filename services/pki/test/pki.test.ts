import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createMemoryBus } from '@edge/bus';
import { loadConfig, schemaName, type Config } from '@edge/config';
import { dropSchema, openConnection, type DbConnection } from '@edge/db';
import type { EdgeService } from '@edge/lifecycle';
import { silentLogger } from '@edge/logging';
import { createTeardown, testPrefix, TEST_DIR_PREFIX } from '@edge/testing';
import { contracts } from '@edge/proto';
import { createRpcClient } from '@edge/rpc';
import { sql, Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPkiService } from '../src/index.js';

const DATABASE_URL = process.env.EDGE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const prefix = `${testPrefix()}_`;
const dataDir = mkdtempSync(join(tmpdir(), `${TEST_DIR_PREFIX}${prefix}pki-`));
// Whatever the file makes is removed after it, also when a step fails half-way.
const teardown = createTeardown();
teardown.add(() => rmSync(dataDir, { recursive: true, force: true }));
let conn: DbConnection;

function config(env: Record<string, string> = {}): Config {
  return loadConfig({
    EDGE_DATABASE_URL: DATABASE_URL,
    EDGE_DATABASE_SCHEMA_PREFIX: prefix,
    EDGE_GRPC_LISTEN_ADDR: '127.0.0.1:0',
    EDGE_DATA_DIR: dataDir,
    EDGE_KEY_ENCRYPTION_KEY: 'a passphrase, not raw key bytes',
    EDGE_ADVERTISED_ADDRESS: 'ctrl.test.example:1280',
    EDGE_SHUTDOWN_GRACE_MS: '500',
    ...env,
  });
}

async function start(cfg = config()): Promise<EdgeService> {
  const svc = createPkiService({ config: cfg, conn, bus: createMemoryBus(), log: silentLogger() });
  teardown.add(() => svc.stop());
  await svc.start();
  return svc;
}

function client(svc: EdgeService) {
  const c = createRpcClient(contracts.pki(), `127.0.0.1:${svc.port()}`, { deadlineMs: 5000 });
  teardown.add(() => c.close());
  return c;
}

/** Raw SQL on the test schema, for looking at what is stored. */
function rawDb() {
  return new Kysely<unknown>({ dialect: conn.dialect() });
}

beforeAll(async () => {
  conn = await openConnection({ url: DATABASE_URL, poolSize: 10 });
  teardown.add(() => conn.close());
  teardown.add(() => dropSchema(conn, schemaName(config(), 'pki')));
});

afterAll(() => teardown.run());

describe('pki service', () => {
  let first: EdgeService;
  let second: EdgeService;

  it('bootstraps once when two replicas start together', async () => {
    [first, second] = await Promise.all([start(), start()]);
    const [a, b] = await Promise.all([client(first).getServerTls({}), client(second).getServerTls({})]);
    expect(a.certChainPem).toContain('BEGIN CERTIFICATE');
    expect(a).toEqual(b);
    const [ca, cb] = await Promise.all([client(first).getCaCerts({}), client(second).getCaCerts({})]);
    expect(ca).toEqual(cb);
    const rows = await sql<{ kind: string }>`select kind from ${sql.id(schemaName(config(), 'pki'), 'controller_certificates')} order by kind`.execute(rawDb());
    expect(rows.rows.map((r) => r.kind)).toEqual(['intermediate-ca', 'root-ca', 'server']);
  });

  it('serves a chain and key a node https server completes a TLS handshake with', async () => {
    const tls = await client(first).getServerTls({});
    const server = createServer({ cert: tls.certChainPem, key: tls.keyPem }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const body = await new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, servername: 'localhost', ca: tls.caBundlePem, path: '/' }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.end();
      });
      expect(body).toBe('ok');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('answers GetCaCerts with a PKCS#7 openssl reads as intermediate + root', async () => {
    const ca = await client(first).getCaCerts({});
    const printed = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-print_certs'], { input: Buffer.from(ca.pkcs7Base64, 'base64'), encoding: 'utf8' });
    expect(printed.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    expect(printed).toContain('CN = Edge Controller Signing CA');
    expect(printed).toContain('CN = Edge Controller Root CA');
    expect(ca.pem.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
  });

  it('stores private keys encrypted, never as PEM', async () => {
    const rows = await sql<{ key_encrypted: string }>`select key_encrypted from ${sql.id(schemaName(config(), 'pki'), 'controller_certificates')}`.execute(rawDb());
    expect(rows.rows).toHaveLength(3);
    const tls = await client(first).getServerTls({});
    for (const r of rows.rows) {
      expect(r.key_encrypted).toMatch(/^v1:/);
      expect(r.key_encrypted).not.toContain('PRIVATE KEY');
      expect(r.key_encrypted).not.toContain(tls.keyPem.split('\n')[1]);
    }
  });

  it('reuses the stored chain on a later start', async () => {
    const before = await client(first).getServerTls({});
    const later = await start();
    expect(await client(later).getServerTls({})).toEqual(before);
  });

  it('re-issues only the server certificate when a configured host is not covered', async () => {
    const before = await client(first).getServerTls({});
    const caBefore = await client(first).getCaCerts({});
    const later = await start(config({ EDGE_TLS_SANS: 'new.test.example,10.9.8.7' }));
    const after = await client(later).getServerTls({});
    expect(after.keyPem).not.toBe(before.keyPem);
    expect(after.caBundlePem).toBe(before.caBundlePem);
    expect(await client(later).getCaCerts({})).toEqual(caBefore);
    // every replica now serves the new certificate
    expect(await client(first).getServerTls({})).toEqual(after);
  });

  it('refuses to start with a different key-encryption key', async () => {
    const wrong = createPkiService({ config: config({ EDGE_KEY_ENCRYPTION_KEY: randomBytes(32).toString('hex') }), conn, bus: createMemoryBus(), log: silentLogger() });
    await expect(wrong.start()).rejects.toThrow(/cannot decrypt the controller/);
    await wrong.stop();
  });
});

describe('key file when no key-encryption key is configured', () => {
  it('creates <dataDir>/pki.key with mode 0600 and bootstraps with it', async () => {
    const dir = join(dataDir, 'nested', 'data');
    const svc = await start(config({ EDGE_KEY_ENCRYPTION_KEY: '', EDGE_DATABASE_SCHEMA_PREFIX: `${prefix}kf_`, EDGE_DATA_DIR: dir }));
    try {
      expect(statSync(join(dir, 'pki.key')).mode & 0o777).toBe(0o600);
      expect((await client(svc).getServerTls({})).keyPem).toContain('BEGIN PRIVATE KEY');
    } finally {
      await dropSchema(conn, `${prefix}kf_pki`);
    }
  });
});

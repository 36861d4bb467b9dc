/**
 * Internal mutual TLS (EDGE_GRPC_TLS=mtls) in the cluster topology: every process obtains its
 * certificate from the pki service with the join token, requests pass through every service,
 * and a service port refuses whoever holds no certificate from the service CA.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { contracts } from '@edge/proto';
import { createMeshCredentials, meshServerName, requestMeshCertificate, CHANNEL_OPTIONS, JoinRefusedError } from '@edge/rpc';
import { createHttpClient, freePortBlock, loadSpecValidator, type HttpClient } from '@edge/testing';
import { cleanupPrefix } from './support/cleanup.js';
import { clusterEnv, stopLauncher } from './support/cluster-env.js';
import { freePort, uniquePrefix } from './support/infra.js';
import { createTestCa, issueClientCert } from './support/test-ca.js';

const launcher = fileURLToPath(new URL('../deploy/launcher/dist/main.js', import.meta.url));
const prefix = uniquePrefix();
const JOIN_TOKEN = 'mtls-test-join-token-0123456789abcdef';
let proc: ChildProcess;
let http: HttpClient;
let output = '';
let basePort = 0;
/** Service n listens on base + 10·n (one replica each), as the launcher assigns. */
const portOf = (n: number) => basePort + 10 * n;
const PKI = 1;
const IDENTITY = 2;

beforeAll(async () => {
  const port = await freePort();
  basePort = await freePortBlock(50);
  proc = spawn(process.execPath, [launcher, 'cluster'], {
    env: clusterEnv('mtls', { httpPort: port, basePort, prefix }, { EDGE_GRPC_TLS: 'mtls', EDGE_GRPC_JOIN_TOKEN: JOIN_TOKEN }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d) => (output += d));
  proc.stderr!.on('data', (d) => (output += d));
  const end = Date.now() + 120_000;
  while (!output.includes('edge controller ready at')) {
    if (Date.now() > end || proc.exitCode !== null) throw new Error(`cluster not ready:\n${output.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
  http = createHttpClient({ baseUrl: `https://127.0.0.1:${port}`, validator: loadSpecValidator() });
}, 130_000);

afterAll(async () => {
  http?.close();
  await stopLauncher(proc);
  await cleanupPrefix(prefix);
});

/** The health status a client with `credentials` gets from 127.0.0.1:`port`, or the error's text. */
function health(port: number, credentials: grpc.ChannelCredentials, options: grpc.ChannelOptions = {}): Promise<string> {
  const Health = contracts.health();
  const client = new Health(`127.0.0.1:${port}`, credentials, { ...CHANNEL_OPTIONS, ...options });
  return new Promise<string>((resolve) => {
    client.check({}, { deadline: Date.now() + 3_000 }, (err, res) => resolve(err ? `${grpc.status[err.code]}: ${err.details}` : res!.status!));
  }).finally(() => client.close());
}

/** The outcome of calling a pki method other than the join one over TLS without a client certificate. */
function pkiWithoutCertificate(): Promise<string> {
  const Pki = contracts.pki();
  const client = new Pki(`127.0.0.1:${portOf(PKI)}`, grpc.credentials.createSsl(null, null, null, { rejectUnauthorized: false }), CHANNEL_OPTIONS);
  return new Promise<string>((resolve) => {
    client.getServerTls({}, { deadline: Date.now() + 3_000 }, (err, res) => resolve(err ? `${grpc.status[err.code]}: ${err.details}` : `answered with a key of ${res!.keyPem!.length} chars`));
  }).finally(() => client.close());
}

describe('EDGE_GRPC_TLS=mtls in the cluster topology', () => {
  it('serves a login and requests that pass through every service', async () => {
    const login = await http.post('/edge/management/v1/authenticate?method=password', { body: { username: 'admin', password: 'mtls-admin-pw' }, expectStatus: 200 });
    const session = login.body.data.token;
    // identity (and pki for its enrollment), policy, session and auth all take part.
    const identity = await http.post('/edge/management/v1/identities', { body: { name: 'mtls-user', type: 'User', isAdmin: false, enrollment: { ott: true } }, session, expectStatus: 201 });
    const read = await http.get(`/edge/management/v1/identities/${identity.body.data.id}`, { session, expectStatus: 200 });
    expect(read.body.data.enrollment.ott.jwt).toMatch(/^ey/);
    await http.post('/edge/management/v1/services', { body: { name: 'mtls-svc', encryptionRequired: true }, session, expectStatus: 201 });
    await http.get('/edge/management/v1/services?limit=5', { session, expectStatus: 200 });
    await http.get('/edge/management/v1/sessions', { session, expectStatus: 200 });
    await http.get('/.well-known/est/cacerts', { expectStatus: 200 });
    await http.delete('/edge/client/v1/current-api-session', { session, expectStatus: 200 });
    expect((await http.get('/edge/client/v1/current-identity', { session })).status).toBe(401);
  });

  it('answers a client holding a certificate from the service CA, and checks the server is the service named', async () => {
    const credentials = createMeshCredentials();
    credentials.update(await requestMeshCertificate({ name: 'test', pkiTarget: `127.0.0.1:${portOf(PKI)}`, joinToken: JOIN_TOKEN }));
    const asIdentity = { 'grpc.ssl_target_name_override': meshServerName('identity') };
    expect(await health(portOf(IDENTITY), credentials.channelCredentials(), asIdentity)).toBe('SERVING');
    // The identity service's certificate does not name pki: a client that meant pki refuses it.
    const asPki = { 'grpc.ssl_target_name_override': meshServerName('pki') };
    expect(await health(portOf(IDENTITY), credentials.channelCredentials(), asPki)).toMatch(/^UNAVAILABLE/);
  });

  it('refuses a client without a certificate, in plaintext, and with a certificate of its own making', async () => {
    expect(await health(portOf(IDENTITY), grpc.credentials.createInsecure())).toMatch(/^UNAVAILABLE/);
    expect(await health(portOf(IDENTITY), grpc.credentials.createSsl(null, null, null, { rejectUnauthorized: false }))).toMatch(/^UNAVAILABLE/);
    const ca = await createTestCa('Not The Service CA');
    const own = await issueClientCert(ca, 'gateway');
    const selfMade = grpc.credentials.createSsl(null, Buffer.from(own.keyPem), Buffer.from(own.certPem), { rejectUnauthorized: false });
    expect(await health(portOf(IDENTITY), selfMade)).toMatch(/^UNAVAILABLE/);
  });

  it('lets a caller without a certificate reach only the join method on the pki port', async () => {
    expect(await pkiWithoutCertificate()).toMatch(/^UNAUTHENTICATED/);
  });

  it('refuses a join request made with another token', async () => {
    const wrong = requestMeshCertificate({ name: 'gateway', pkiTarget: `127.0.0.1:${portOf(PKI)}`, joinToken: 'another-join-token-0123456789abcdef' });
    await expect(wrong).rejects.toBeInstanceOf(JoinRefusedError);
    await expect(wrong).rejects.toThrow(/refused the join request/);
    // pki's log line reaches the cluster's output a moment after its answer.
    await vi.waitFor(() => expect(output).toContain('refused a service certificate request'), { timeout: 5_000 });
  });

  it('ends a process started with another token than pki\'s, with one line naming the variable and not its value', async () => {
    const gateway = fileURLToPath(new URL('../services/gateway/dist/main.js', import.meta.url));
    const wrongToken = 'a-gateway-with-the-wrong-token-0123456789';
    const child = spawn(process.execPath, [gateway], {
      env: { ...clusterEnv('mtls', { httpPort: await freePort(), basePort, prefix }), EDGE_GRPC_TLS: 'mtls', EDGE_GRPC_JOIN_TOKEN: wrongToken, EDGE_PKI_GRPC_ADDR: `127.0.0.1:${portOf(PKI)}`, EDGE_LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout!.on('data', (d) => (text += d));
    child.stderr!.on('data', (d) => (text += d));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).toBe(1);
    expect(text).toContain('EDGE_GRPC_JOIN_TOKEN (value hidden): the pki service refused the join request');
    expect(text).not.toContain(wrongToken);
  });
});

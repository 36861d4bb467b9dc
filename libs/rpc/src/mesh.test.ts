import { webcrypto } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { contracts, type PkiServiceClient, type PkiServiceHandlers } from '@edge/proto';
import { silentLogger } from '@edge/logging';
import {
  createMeshCredentials, createMeshCsr, createRpcClient, createRpcServer, joinAnswerMac, joinRequestMac, keepRenewed, meshServerName,
  requestMeshCertificate, stubHandlers, JoinRefusedError, type MeshCertificate, type RpcServer,
} from './index.js';

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 3600 * 1000;
const TOKEN = 'unit-test-join-token-0123456789abcdef';

/** A stand-in service CA: issues `name`'s certificate for a CSR, valid from `from` for `days`. */
async function createCa() {
  x509.cryptoProvider.set(webcrypto);
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01', name: 'CN=Test Service CA', notBefore: new Date(Date.now() - DAY), notAfter: new Date(Date.now() + 365 * DAY), keys, signingAlgorithm: ALG,
    extensions: [new x509.BasicConstraintsExtension(true, 0, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  const issue = async (name: string, csrPem: string, from = new Date(Date.now() - 60_000), days = 30) => (await x509.X509CertificateGenerator.create({
    serialNumber: String(Math.floor(Math.random() * 1e9) + 2), subject: `CN=${name}`, issuer: cert.subject, notBefore: from, notAfter: new Date(from.getTime() + days * DAY),
    signingAlgorithm: ALG, publicKey: new x509.Pkcs10CertificateRequest(csrPem).publicKey, signingKey: keys.privateKey,
    extensions: [
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: meshServerName(name) }]),
    ],
  })).toString('pem');
  const certificate = async (name: string, from?: Date, days?: number): Promise<MeshCertificate> => {
    const { keyPem, csrPem } = await createMeshCsr(name);
    return { keyPem, certPem: await issue(name, csrPem, from, days), caPem: cert.toString('pem') };
  };
  return { caPem: cert.toString('pem'), issue, certificate };
}

let ca: Awaited<ReturnType<typeof createCa>>;
let server: RpcServer;
let port = 0;
/** What the stand-in pki answers a join request with. */
let answer: 'proof' | 'no-proof' = 'proof';

beforeAll(async () => {
  ca = await createCa();
  const serverTls = createMeshCredentials();
  serverTls.update(await ca.certificate('pki'));
  server = createRpcServer('pki', silentLogger(), { tls: serverTls, openMethods: ['IssueServiceCertificate'] });
  server.add<PkiServiceHandlers>(contracts.pki(), stubHandlers<PkiServiceHandlers>({
    async IssueServiceCertificate(req) {
      const certPem = await ca.issue(req.name, req.csrPem);
      const mac = answer === 'proof' ? joinAnswerMac(TOKEN, req.mac, certPem, ca.caPem) : joinAnswerMac('a-pki-without-the-token-0123456789', req.mac, certPem, ca.caPem);
      expect(req.mac).toBe(joinRequestMac(TOKEN, { name: req.name, timestampMs: Number(req.timestampMs), csrPem: req.csrPem }));
      return { certPem, caPem: ca.caPem, mac };
    },
    async GetCaCerts() {
      return { pkcs7Base64: 'p', pem: 'ca' };
    },
  }));
  port = await server.listen('127.0.0.1:0');
  server.setServing(true);
});
afterAll(() => server.stop(100));

describe('joining with the join token', () => {
  it('gets a certificate for a key that stays here, and calls a mutual-TLS server with it', async () => {
    answer = 'proof';
    const credentials = createMeshCredentials();
    credentials.update(await requestMeshCertificate({ name: 'gateway', pkiTarget: `127.0.0.1:${port}`, joinToken: TOKEN }));
    const client = createRpcClient(contracts.pki(), `127.0.0.1:${port}`, { deadlineMs: 3000, tls: credentials });
    expect((await client.getCaCerts({})).pem).toBe('ca');
    client.close();
  });

  it('refuses an answer without proof that the pki service holds the token', async () => {
    answer = 'no-proof';
    await expect(requestMeshCertificate({ name: 'gateway', pkiTarget: `127.0.0.1:${port}`, joinToken: TOKEN })).rejects.toBeInstanceOf(JoinRefusedError);
  });

  it('answers a caller without a client certificate UNAUTHENTICATED on every method but the open one', async () => {
    const Pki = contracts.pki();
    const client: PkiServiceClient = new Pki(`127.0.0.1:${port}`, grpc.credentials.createSsl(null, null, null, { rejectUnauthorized: false }), { 'grpc.ssl_target_name_override': meshServerName('pki') });
    const code = await new Promise<number | undefined>((resolve) => client.getCaCerts({}, { deadline: Date.now() + 3000 }, (err) => resolve(err?.code)));
    client.close();
    expect(code).toBe(grpc.status.UNAUTHENTICATED);
  });
});

describe('keepRenewed', () => {
  it('renews after two thirds of the lifetime, and retries a failed renewal a minute later', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const start = Date.now();
      const credentials = createMeshCredentials();
      credentials.update(await ca.certificate('auth', new Date(start), 30));
      let calls = 0;
      let issued: Promise<MeshCertificate> | undefined;
      const renew = vi.fn(async () => {
        calls += 1;
        if (calls === 1) throw new Error('pki away');
        return (issued = ca.certificate('auth', new Date(Date.now()), 30));
      });
      const stop = keepRenewed(credentials, renew, silentLogger());
      await vi.advanceTimersByTimeAsync(19 * DAY);
      expect(renew).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(1 * DAY + 1000);
      expect(renew).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(61_000);
      expect(renew).toHaveBeenCalledTimes(2);
      // The new certificate is made with real (untimed) crypto: let it finish, then be installed.
      await issued;
      await new Promise((r) => setImmediate(r));
      expect(credentials.validity()!.notAfter.getTime()).toBeGreaterThan(start + 49 * DAY);
      stop();
    } finally {
      vi.useRealTimers();
    }
  });
});

/**
 * How a process obtains its service certificate (EDGE_GRPC_TLS=mtls) without trusting the
 * network: it makes a key pair that never leaves it, and sends the pki service a CSR with an
 * HMAC under the join token (EDGE_GRPC_JOIN_TOKEN) over its name, the time and the CSR. The pki
 * service answers with a certificate from the internal service CA, the CA, and an HMAC over
 * the request's HMAC and both certificates: the caller accepts the CA only from a pki that holds
 * the token. The exchange runs over TLS whose server certificate is not yet verifiable (the
 * caller has no CA yet); the HMACs carry the trust, and nothing in it is secret.
 */
import { X509Certificate, webcrypto } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import * as x509 from '@peculiar/x509';
import type { Logger } from '@edge/logging';
import { contracts, type pki } from '@edge/proto';
import { CHANNEL_OPTIONS } from './client.js';
import { joinAnswerMac, joinRequestMac, macMatches } from './join-mac.js';
import { meshServerName, type MeshCertificate, type MeshCredentials } from './mesh-credentials.js';

/** What a process needs to join: its name, where pki is, the shared token. */
export interface JoinOptions {
  /** auth, pki, identity, policy, session, gateway or launcher: the name its certificate carries. */
  name: string;
  /** The pki service's gRPC target. */
  pkiTarget: string;
  joinToken: string;
  /** Deadline of one request (default 10 s). */
  deadlineMs?: number;
}

/** The pki service refused the request or answered without proof: retrying will not help. */
export class JoinRefusedError extends Error {
  override name = 'JoinRefusedError';
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** A new ECDSA P-256 key (PKCS#8 PEM) and a CSR for it with CN = `name`. */
export async function createMeshCsr(name: string): Promise<{ keyPem: string; csrPem: string }> {
  const crypto = webcrypto;
  const keys = await crypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: `CN=${name}`, keys, signingAlgorithm: ALGORITHM }, crypto);
  return { keyPem: x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY'), csrPem: csr.toString('pem') };
}

/** One join request: a new key pair, its CSR, and the checked answer. */
export async function requestMeshCertificate(opts: JoinOptions): Promise<MeshCertificate> {
  const { keyPem, csrPem } = await createMeshCsr(opts.name);
  const fields = { name: opts.name, timestampMs: Date.now(), csrPem };
  const mac = joinRequestMac(opts.joinToken, fields);
  const answer = await callIssue(opts, { name: fields.name, csrPem: fields.csrPem, timestampMs: fields.timestampMs, mac });
  if (!macMatches(answer.mac, joinAnswerMac(opts.joinToken, mac, answer.certPem, answer.caPem))) {
    throw new JoinRefusedError('the pki service answered without proof that it holds EDGE_GRPC_JOIN_TOKEN');
  }
  checkIssued(answer.certPem, answer.caPem, opts.name);
  return { keyPem, certPem: answer.certPem, caPem: answer.caPem };
}

/** The certificate must name this process; the key match and the CA signature are checked on use. */
function checkIssued(certPem: string, caPem: string, name: string): void {
  const cert = new X509Certificate(certPem);
  const ca = new X509Certificate(caPem);
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) throw new JoinRefusedError('the issued certificate is not signed by the CA sent with it');
  if (cert.checkHost(meshServerName(name), { wildcards: false, subject: 'never' }) === undefined) {
    throw new JoinRefusedError(`the issued certificate does not name ${meshServerName(name)}`);
  }
}

function callIssue(opts: JoinOptions, req: pki.ServiceCertificateRequest): Promise<{ certPem: string; caPem: string; mac: string }> {
  const Pki = contracts.pki();
  // No CA yet: the server's certificate cannot be verified here; the answer's HMAC is.
  const client = new Pki(opts.pkiTarget, grpc.credentials.createSsl(null, null, null, { rejectUnauthorized: false }), {
    ...CHANNEL_OPTIONS, 'grpc.ssl_target_name_override': meshServerName('pki'),
  });
  return new Promise<{ certPem: string; caPem: string; mac: string }>((resolve, reject) => {
    client.issueServiceCertificate(req, { deadline: Date.now() + (opts.deadlineMs ?? 10_000) }, (err, res) => {
      if (err) reject(err.code === grpc.status.UNAUTHENTICATED || err.code === grpc.status.PERMISSION_DENIED ? new JoinRefusedError(`the pki service refused the join request: ${err.details}`) : err);
      else resolve({ certPem: res!.certPem ?? '', caPem: res!.caPem ?? '', mac: res!.mac ?? '' });
    });
  }).finally(() => client.close());
}

/** Options of {@link joinMesh}. */
export interface JoinMeshOptions extends JoinOptions {
  log: Logger;
  /** Give up after this long (default: never; the process waits for pki as it waits for any peer). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Obtains the process's certificate, waiting for the pki service while it is unreachable, and
 * installs it into `credentials`. A refusal (wrong token) fails at once.
 */
export async function joinMesh(credentials: MeshCredentials, opts: JoinMeshOptions): Promise<void> {
  const until = opts.timeoutMs === undefined ? Infinity : Date.now() + opts.timeoutMs;
  let reported = Date.now();
  for (;;) {
    opts.signal?.throwIfAborted();
    try {
      credentials.update(await requestMeshCertificate(opts));
      opts.log.info({ name: opts.name, notAfter: credentials.validity()?.notAfter }, 'obtained the service certificate for internal mutual TLS');
      return;
    } catch (err) {
      if (err instanceof JoinRefusedError || Date.now() > until) throw err;
      if (Date.now() - reported > 15_000) {
        reported = Date.now();
        opts.log.warn({ err, pki: opts.pkiTarget }, 'waiting for the pki service to issue the service certificate');
      }
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Retry delay of a failed renewal. */
const RENEW_RETRY_MS = 60_000;

/**
 * Renews the certificate in `credentials` with `renew` once two thirds of its lifetime have
 * passed, and again for every certificate after it; a failed renewal is retried every minute
 * (the current certificate still serves meanwhile). Returns the function that stops renewing.
 */
export function keepRenewed(credentials: MeshCredentials, renew: () => Promise<MeshCertificate>, log: Logger, now = () => Date.now()): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = (delayMs: number) => {
    if (stopped) return;
    // setTimeout holds at most ~24.8 days; a longer wait is taken in steps.
    timer = setTimeout(() => void tick(), Math.min(Math.max(delayMs, 0), 2 ** 31 - 1));
    timer.unref();
  };
  const due = () => {
    const v = credentials.validity();
    return v ? v.notBefore.getTime() + ((v.notAfter.getTime() - v.notBefore.getTime()) * 2) / 3 : now();
  };
  const tick = async () => {
    if (now() < due()) return schedule(due() - now());
    try {
      credentials.update(await renew());
      log.info({ notAfter: credentials.validity()?.notAfter }, 'renewed the service certificate');
      schedule(due() - now());
    } catch (err) {
      log.warn({ err }, 'renewing the service certificate failed; retrying in a minute');
      schedule(RENEW_RETRY_MS);
    }
  };
  schedule(due() - now());
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/**
 * A process's part in internal mutual TLS (EDGE_GRPC_TLS=mtls): credentials that every gRPC
 * server and client of the process uses, and for every process but pki the certificate it
 * obtains from the pki service at start-up and renews while it runs (@edge/rpc join.ts).
 */
import type { Config } from '@edge/config';
import type { Logger } from '@edge/logging';
import { createMeshCredentials, joinMesh, keepRenewed, requestMeshCertificate, useMeshCredentials, JoinRefusedError, type MeshCredentials } from '@edge/rpc';
import { StartupError } from './startup-error.js';

/**
 * Credentials for this process when the configuration asks for mutual TLS, installed as the
 * process's default; undefined (plaintext) otherwise. They hold no certificate yet.
 */
export function meshCredentialsFor(config: Config): MeshCredentials | undefined {
  const credentials = config.grpc.tls.mode === 'mtls' ? createMeshCredentials() : undefined;
  useMeshCredentials(credentials);
  return credentials;
}

/** Options of {@link joinServiceMesh}. */
export interface JoinServiceMeshOptions {
  /** Where pki is (default: the configuration's EDGE_PKI_GRPC_ADDR). */
  pkiTarget?: string;
  /** Stops waiting for pki. */
  signal?: AbortSignal;
}

/**
 * Obtains `name`'s certificate from the pki service into `credentials` (waiting for pki to
 * answer) and keeps it renewed; resolves to the function that stops renewing. A refusal is a
 * {@link StartupError} naming EDGE_GRPC_JOIN_TOKEN (its value hidden).
 */
export async function joinServiceMesh(credentials: MeshCredentials, config: Config, name: string, log: Logger, options: JoinServiceMeshOptions = {}): Promise<() => void> {
  const opts = { name, pkiTarget: options.pkiTarget ?? config.grpc.targets.pki, joinToken: config.grpc.tls.joinToken!, deadlineMs: config.grpc.deadlineMs };
  try {
    await joinMesh(credentials, { ...opts, log, signal: options.signal });
  } catch (err) {
    // A refusal is the operator's to fix: most likely another token than pki's.
    if (err instanceof JoinRefusedError) throw new StartupError('EDGE_GRPC_JOIN_TOKEN', opts.joinToken, err.message);
    throw err;
  }
  return keepRenewed(credentials, () => requestMeshCertificate(opts), log);
}

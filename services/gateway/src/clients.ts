/**
 * gRPC clients of the five services, one per service target (each may balance over replicas).
 */
import type { Config } from '@edge/config';
import type { AuthServiceClient, IdentityServiceClient, PkiServiceClient, PolicyServiceClient, SessionServiceClient } from '@edge/proto';
import { peerClients, type RpcClient } from '@edge/rpc';

export interface Clients {
  auth: RpcClient<AuthServiceClient>;
  pki: RpcClient<PkiServiceClient>;
  identity: RpcClient<IdentityServiceClient>;
  policy: RpcClient<PolicyServiceClient>;
  session: RpcClient<SessionServiceClient>;
  close(): void;
}

/** Connects (lazily, as grpc-js does) to every service the configuration names. */
export function createClients(config: Config): Clients {
  return peerClients(config.grpc, ['auth', 'pki', 'identity', 'policy', 'session']);
}

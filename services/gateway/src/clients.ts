/**
 * gRPC clients of the five services, one per service target (each may balance over replicas).
 */
import type { Config } from '@edge/config';
import { contracts, type AuthServiceClient, type IdentityServiceClient, type PkiServiceClient, type PolicyServiceClient, type SessionServiceClient } from '@edge/proto';
import { createRpcClient, type RpcClient } from '@edge/rpc';

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
  const opts = { deadlineMs: config.grpc.deadlineMs };
  const t = config.grpc.targets;
  const c = {
    auth: createRpcClient(contracts.auth(), t.auth, opts),
    pki: createRpcClient(contracts.pki(), t.pki, opts),
    identity: createRpcClient(contracts.identity(), t.identity, opts),
    policy: createRpcClient(contracts.policy(), t.policy, opts),
    session: createRpcClient(contracts.session(), t.session, opts),
  };
  return { ...c, close: () => Object.values(c).forEach((x) => x.close()) };
}

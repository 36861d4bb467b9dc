/**
 * The services enrollment works with, one client per owner: the identity service owns
 * identities and routers, the auth service owns authenticators (ARCHITECTURE.md rule 1).
 */
import type { AuthServiceClient, IdentityServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';
import { createAuthPeer, type AuthPeer } from './auth.js';
import { createIdentityPeer, type IdentityPeer } from './identity.js';

/** Every answer enrollment needs from other owners, over one client per owner. */
export function createEnrollmentPeers(clients: {
  identity: RpcClient<IdentityServiceClient>;
  auth: RpcClient<AuthServiceClient>;
}): EnrollmentPeers {
  return { ...createIdentityPeer(clients.identity), ...createAuthPeer(clients.auth) };
}

/** What enrollment asks of other services. */
export type EnrollmentPeers = IdentityPeer & AuthPeer;

/**
 * What sessions need from the services owning the facts, one client per owner: identities and
 * routers (identity service), service grants, posture checks and router policies (policy
 * service), API sessions (auth service). ARCHITECTURE.md rule 1: asked over gRPC, never read
 * from their schemas.
 */
import type { HeardChanges } from '@edge/bus';
import type { AuthServiceClient, IdentityServiceClient, PolicyServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';
import { createAuthPeer, type AuthPeer } from './auth.js';
import { createIdentityPeer, type IdentityPeer } from './identity.js';
import { createPolicyPeer, type PolicyPeer } from './policy.js';

export type { RoleSelection } from './common.js';
export type { PeerIdentity } from './identity.js';
export type { PeerApiSession } from './auth.js';
export { grantKey, type EdgeRouterView, type Grant, type GrantedService, type ServiceAccess } from './policy.js';

/**
 * Every answer sessions need from other owners, over one client per owner; with `accessChanges`,
 * the accesses the policy service answered are held on their terms (peers/policy.ts).
 */
export function createSessionPeers(clients: {
  identity: RpcClient<IdentityServiceClient>;
  policy: RpcClient<PolicyServiceClient>;
  auth: RpcClient<AuthServiceClient>;
}, accessChanges?: HeardChanges): SessionPeers {
  return { ...createIdentityPeer(clients.identity), ...createPolicyPeer(clients.policy, accessChanges), ...createAuthPeer(clients.auth) };
}

export type SessionPeers = IdentityPeer & PolicyPeer & AuthPeer;

/**
 * The caller of a client route as policies see it: its identity id and role attributes, which
 * the policy service evaluates its policies for.
 */
import type { Clients } from '../../clients.js';
import type { Principal } from '../../http/session-cache.js';

/** Who is asking, by identity id and role attributes. */
export interface PolicyCaller {
  identityId: string;
  roleAttributes: string[];
}

/**
 * The caller's identity and role attributes. The role attributes are read from the identity
 * service, their owner; this is the one place that does so for client routes.
 */
export async function policyCaller(clients: Clients, principal: Principal | undefined): Promise<PolicyCaller> {
  const identityId = principal!.apiSession!.identityId;
  const identity = await clients.identity.getIdentity({ id: identityId });
  return { identityId, roleAttributes: identity.roleAttributes };
}

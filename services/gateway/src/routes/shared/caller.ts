/**
 * The caller of a client route as policies see it: its identity id and role attributes, which
 * the policy service evaluates its policies for.
 */
import type { Principal } from '../../http/session-cache.js';

/** Who is asking, by identity id and role attributes. */
export interface PolicyCaller {
  identityId: string;
  roleAttributes: string[];
}

/**
 * The caller's identity and role attributes. The role attributes come with the principal (the
 * auth service keeps them from the identity service's events), so no call is made.
 */
export function policyCaller(principal: Principal | undefined): PolicyCaller {
  return { identityId: principal!.apiSession!.identityId, roleAttributes: principal!.roleAttributes };
}

/**
 * Auth policies as the identity service sees them: they are owned by the auth service, which is
 * asked whether an id names one (ARCHITECTURE.md rule 1).
 */
import { isZitiError } from '@edge/errors';
import type { AuthServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';

/** Whether an auth policy exists. */
export interface AuthPolicyLookup {
  exists(id: string): Promise<boolean>;
}

/** Wraps the auth client. */
export function createAuthPolicyLookup(client: RpcClient<AuthServiceClient>): AuthPolicyLookup {
  return {
    async exists(id) {
      try {
        await client.getAuthPolicy({ id });
        return true;
      } catch (err) {
        if (isZitiError(err) && err.code === 'NOT_FOUND') return false;
        throw err;
      }
    },
  };
}

/**
 * What enrollment asks of the auth service, which owns authenticators.
 */
import type { AuthServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';

/** What enrollment asks of the auth service. */
export interface AuthPeer {
  /** Creates the cert authenticator of a completed ott enrollment. */
  createCertAuthenticator(identityId: string, certPem: string): Promise<void>;
  /** Creates the updb authenticator of a completed updb enrollment (password rules apply there). */
  createUpdbAuthenticator(identityId: string, username: string, password: string): Promise<void>;
  /** Which authenticators an identity has: what its completed enrollments left. */
  authenticatorsOf(identityId: string): Promise<{ cert: boolean; updb: boolean }>;
}

/** Wraps the auth service's client. */
export function createAuthPeer(auth: RpcClient<AuthServiceClient>): AuthPeer {
  return {
    async createCertAuthenticator(identityId, certPem) {
      await auth.createCertAuthenticator({ identityId, certPem });
    },
    async createUpdbAuthenticator(identityId, username, password) {
      await auth.createUpdbAuthenticator({ identityId, username, password });
    },
    async authenticatorsOf(identityId) {
      const [summary] = (await auth.getIdentityAuthSummaries({ identityIds: [identityId] })).summaries;
      return { cert: Boolean(summary?.certId), updb: Boolean(summary?.updbId) };
    },
  };
}

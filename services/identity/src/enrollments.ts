/**
 * Enrollments as the identity service sees them: the pki service owns them, and is asked to
 * create an identity's enrollments and to replace a router's (ARCHITECTURE.md rule 1).
 */
import type { PkiServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';
import type { EnrollmentAsk } from './domain/enrollment.js';
import type { RouterKind } from './domain/router.js';

/** The enrollment calls this service makes. */
export interface EnrollmentClient {
  createForIdentity(identityId: string, ask: EnrollmentAsk): Promise<void>;
  /** Drops the router's enrollments and issues a new one. */
  replaceForRouter(kind: RouterKind, routerId: string): Promise<void>;
}

/** Wraps the pki client. */
export function createEnrollmentClient(pki: RpcClient<PkiServiceClient>): EnrollmentClient {
  return {
    async createForIdentity(identityId, ask) {
      await pki.createEnrollment({ method: ask.method, identityId, caId: ask.caId, username: ask.username, expiresAt: '' });
    },
    async replaceForRouter(kind, routerId) {
      await pki.replaceRouterEnrollment({ kind, routerId });
    },
  };
}

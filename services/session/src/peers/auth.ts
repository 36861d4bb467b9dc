/**
 * What sessions need from the auth service: API sessions and when they passed MFA.
 * ARCHITECTURE.md rule 1: asked over gRPC, never read from its schema.
 */
import type { AuthServiceClient } from '@edge/proto';
import { allPages, orMissing, type CallerPrincipal, type RpcClient } from '@edge/rpc';
import { callerWhere, everything, idIn, PAGE } from './common.js';

/** An API session as reconciliation sees it: that it exists, and when it passed MFA. */
export interface PeerApiSession {
  id: string;
  mfaPassedAt?: Date;
}

/** When an API session passed MFA: it is last updated then (activity is kept apart); undefined when it did not. */
const mfaPassedAtOf = (s: { isMfaRequired: boolean; isMfaComplete: boolean; updatedAt: string }) =>
  (s.isMfaRequired && s.isMfaComplete ? new Date(s.updatedAt) : undefined);

/** When the caller's API session passed MFA, as its principal says. */
const principalMfaPassedAt = (p: CallerPrincipal) =>
  (p.mfa.required && p.mfa.complete && p.mfa.passedAt ? new Date(p.mfa.passedAt) : undefined);

/** The auth service's answers, over its client. */
export function createAuthPeer(auth: RpcClient<AuthServiceClient>) {
  return {
    /** The API sessions among `ids` that exist, with when each passed MFA, in one call per 500. */
    async apiSessions(ids: readonly string[]): Promise<Map<string, PeerApiSession>> {
      const out = new Map<string, PeerApiSession>();
      const unique = [...new Set(ids)];
      for (let i = 0; i < unique.length; i += PAGE) {
        const chunk = unique.slice(i, i + PAGE);
        const page = await auth.listApiSessions({ query: { ...everything(0), limit: chunk.length, filter: idIn(chunk) } });
        for (const s of page.apiSessions) out.set(s.id, { id: s.id, mfaPassedAt: mfaPassedAtOf(s) });
      }
      return out;
    },

    async apiSessionExists(id: string): Promise<boolean> {
      if (callerWhere((p) => p.apiSessionId === id)) return true;
      return (await orMissing(auth.getApiSession({ id }))) !== undefined;
    },

    /** The identity's current API sessions, with when each passed MFA. */
    async apiSessionsOf(identityId: string): Promise<Array<{ id: string; mfaPassedAt?: Date }>> {
      const sessions = await allPages(async (query) => {
        const p = await auth.listApiSessions({ query: { ...query, filter: `identity = ${JSON.stringify(identityId)}` } });
        return { items: p.apiSessions, meta: p.meta };
      });
      return sessions.map((s) => ({ id: s.id, mfaPassedAt: mfaPassedAtOf(s) }));
    },

    /** When the API session completed MFA (the MFA posture check); undefined when it did not, or is gone. */
    async mfaPassedAt(id: string): Promise<Date | undefined> {
      const self = callerWhere((p) => p.apiSessionId === id);
      if (self) return principalMfaPassedAt(self);
      const s = await orMissing(auth.getApiSession({ id }));
      return s && mfaPassedAtOf(s);
    },
  };
}

export type AuthPeer = ReturnType<typeof createAuthPeer>;

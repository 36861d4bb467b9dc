/**
 * Using and ending API sessions: validation with sliding expiry, look-up, logout, and the end
 * of every session of a deleted identity. Every end records its event with the delete (store).
 */
import { ZitiError, notFound } from '@edge/errors';
import { ACTIVITY_WRITE_INTERVAL_MS, hashToken, isExpired, needsActivityUpdate, type ApiSession } from './domain/api-session.js';
import type { AuthPolicy } from './domain/auth-policy.js';
import type { Identities, IdentityInfo } from './peers/identity.js';
import type { AuthStore } from './store/api-session.js';

/** What the API session operations work with. */
export interface ApiSessionDeps {
  store: AuthStore;
  identities: Identities;
  timeoutMinutes: number;
}

/** An API session with the identity it belongs to (absent when that identity is gone). */
export interface SessionWithIdentity {
  session: ApiSession;
  identity?: IdentityInfo;
}

// Bounds each delete so a large backlog does not hold locks in one long statement.
const SWEEP_BATCH = 500;

// WIRE.md: the gateway answers 401 with WWW-Authenticate saying why; `reason` carries it.
function unauthorized(reason: 'invalid' | 'expired'): ZitiError {
  return new ZitiError('UNAUTHORIZED', { args: { reason } });
}

/** Creates the API session operations. */
export function createApiSessions(deps: ApiSessionDeps) {
  const { store, identities, timeoutMinutes } = deps;

  /** Deletes one session (its event with it); false when it was gone already. */
  async function end(id: string): Promise<boolean> {
    return (await store.deleteApiSession(id)) !== undefined;
  }

  async function recordActivity(session: ApiSession, now: Date): Promise<ApiSession> {
    if (!needsActivityUpdate(session, now)) return session;
    await store.touchApiSession(session.id, now, new Date(now.getTime() - ACTIVITY_WRITE_INTERVAL_MS));
    return { ...session, lastActivityAt: now };
  }

  return {
    end,

    /**
     * The session a token names, its activity recorded. Unknown → UNAUTHORIZED invalid;
     * idle past the timeout → deleted, UNAUTHORIZED expired; identity gone or disabled →
     * deleted, UNAUTHORIZED invalid (as OpenZiti ends the API sessions of a disabled identity).
     * `identityNotBefore`: the identity is not taken from a version older than that. The session,
     * its identity as the read model holds it and that identity's auth policy are read in one
     * statement; the policy is answered only with the identity it was read with (`policy`
     * undefined: the identity came from the identity service, ask for its policy).
     */
    async validate(token: string, identityNotBefore?: Date): Promise<Required<SessionWithIdentity> & { policy: AuthPolicy | undefined }> {
      const now = new Date();
      const read = token === '' ? undefined : await store.findApiSessionByTokenHash(hashToken(token));
      if (!read) throw unauthorized('invalid');
      const { session } = read;
      if (isExpired(session, timeoutMinutes, now)) {
        await end(session.id);
        throw unauthorized('expired');
      }
      const identity = await identities.findFrom(session.identityId, read.identity, identityNotBefore);
      if (!identity || identity.disabled) {
        await end(session.id);
        throw unauthorized('invalid');
      }
      const fromModel = read.identity.state === 'present' && read.identity.identity === identity;
      return { session: await recordActivity(session, now), identity, policy: fromModel ? read.policy : undefined };
    },

    /** One session by id with its identity; NOT_FOUND when unknown. */
    async get(id: string): Promise<SessionWithIdentity> {
      const session = await store.findApiSession(id);
      if (!session) throw notFound('apiSession', id);
      return { session, identity: await identities.find(session.identityId) };
    },

    /** Logout / admin delete; NOT_FOUND when unknown (or already ended). */
    async delete(id: string): Promise<void> {
      if (!(await end(id))) throw notFound('apiSession', id);
    },

    /**
     * Deletes sessions idle past the timeout that nobody presented again (validation only
     * catches those that are used), so their end is published too.
     */
    async sweepExpired(now = new Date()): Promise<number> {
      const cutoff = new Date(now.getTime() - timeoutMinutes * 60_000);
      let total = 0;
      for (;;) {
        const ended = await store.deleteIdleApiSessions(cutoff, SWEEP_BATCH);
        total += ended.length;
        if (ended.length < SWEEP_BATCH) return total;
      }
    },

    /**
     * Ends every API session of a deleted identity and removes its authenticators. A repeat
     * finds nothing left and publishes nothing.
     */
    async endForIdentity(identityId: string): Promise<void> {
      await store.deleteIdentityAuth(identityId);
    },

    /** Ends every API session of a disabled identity; its authenticators stay. Idempotent. */
    async endSessionsOf(identityId: string): Promise<void> {
      await store.deleteApiSessionsOf(identityId);
    },
  };
}

/** The API session operations. */
export type ApiSessions = ReturnType<typeof createApiSessions>;

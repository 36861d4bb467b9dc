import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryBus } from '@edge/bus';
import type { Bus } from '@edge/bus';
import { ZitiError } from '@edge/errors';
import { createGate } from '@edge/testing';
import type { Clients } from '../clients.js';
import { createSessionCache, type Principal, type SessionCache } from './session-cache.js';

/**
 * A stand-in auth service: answers each token with its identity, counting the calls, optionally
 * held until released. Its read model holds each identity at `modelVersion` (by default the
 * owner's); asked with a newer floor, it answers the owner's version, as the auth service does.
 */
function authStandIn() {
  const calls: string[] = [];
  const floorsAsked: string[] = [];
  const ownerVersion: Record<string, string> = {};
  const modelVersion: Record<string, string> = {};
  const gate = createGate();
  /** Tokens whose API session ended without an event reaching the cache. */
  const refused = new Set<string>();
  const identities: Record<string, string> = { 'token-a': 'identity-a', 'token-b': 'identity-b', 'token-brief': 'identity-brief' };
  // An API session that expires a moment after it is validated.
  const expiresAt = (token: string) => (token === 'token-brief' ? new Date(Date.now() + 100).toISOString() : new Date(Date.now() + 1_800_000).toISOString());
  const clients = {
    auth: {
      async validateSession({ token, minIdentityUpdatedAt = '' }: { token: string; minIdentityUpdatedAt?: string }): Promise<Principal> {
        calls.push(token);
        if (minIdentityUpdatedAt) floorsAsked.push(minIdentityUpdatedAt);
        await gate.passed();
        if (refused.has(token)) throw new ZitiError('UNAUTHORIZED');
        const identityId = identities[token]!;
        const held = modelVersion[identityId] ?? ownerVersion[identityId] ?? '2026-01-01T00:00:00.000Z';
        const version = minIdentityUpdatedAt > held ? ownerVersion[identityId]! : held;
        return { apiSession: { id: `session-of-${token}`, identityId, expiresAt: expiresAt(token) }, roleAttributes: [], identityUpdatedAt: version } as unknown as Principal;
      },
    },
  } as unknown as Clients;
  return {
    clients,
    calls,
    floorsAsked,
    refused,
    /** The identity changed at its owner; the read model has not caught up yet. */
    changeAtOwner(identityId: string, version: string) {
      modelVersion[identityId] ??= ownerVersion[identityId] ?? '2026-01-01T00:00:00.000Z';
      ownerVersion[identityId] = version;
    },
    hold: gate.hold,
    release: gate.release,
  };
}

/** Lets the bus deliver what was published. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('session cache', () => {
  let bus: Bus;
  let auth: ReturnType<typeof authStandIn>;
  let cache: SessionCache;

  beforeEach(async () => {
    bus = createMemoryBus();
    auth = authStandIn();
    cache = createSessionCache(auth.clients, bus);
    await cache.start();
  });

  afterEach(async () => {
    await cache.stop();
    await bus.close();
  });

  it('validates a token once for requests that arrive together', async () => {
    auth.hold();
    const all = Promise.all(Array.from({ length: 16 }, () => cache.resolve('token-a')));
    await settle();
    auth.release();
    expect(new Set((await all).map((p) => p.apiSession!.identityId))).toEqual(new Set(['identity-a']));
    await cache.resolve('token-a');
    expect(auth.calls).toEqual(['token-a']);
  });

  it('keeps a principal while other identities log in, change or log out', async () => {
    await cache.resolve('token-a');
    await cache.resolve('token-b');
    await bus.publish('edge.auth.api-session.created', { id: 'session-of-token-c', identityId: 'identity-c' });
    await bus.publish('edge.auth.api-session.deleted', { id: 'session-of-token-b', identityId: 'identity-b' });
    await bus.publish('edge.auth.principal.updated', { identityId: 'identity-b' });
    await bus.publish('edge.identity.identity.updated', { id: 'identity-b' });
    await bus.publish('edge.auth.mfa.deleted', { id: 'mfa-b', identityId: 'identity-b' });
    await settle();
    await cache.resolve('token-a');
    expect(auth.calls).toEqual(['token-a', 'token-b']);
  });

  it('validates again after a change of the identity', async () => {
    await cache.resolve('token-a');
    await bus.publish('edge.auth.principal.updated', { identityId: 'identity-a' });
    await settle();
    await cache.resolve('token-a');
    expect(auth.calls).toEqual(['token-a', 'token-a']);
  });

  it('does not cache a validation that a change overtook', async () => {
    auth.hold();
    const before = cache.resolve('token-a');
    await settle();
    // The session ends while its validation is under way: later requests do not share it.
    await bus.publish('edge.auth.api-session.deleted', { id: 'session-of-token-a', identityId: 'identity-a' });
    await settle();
    const after = cache.resolve('token-a');
    auth.release();
    await Promise.all([before, after]);
    await cache.resolve('token-a');
    expect(auth.calls).toEqual(['token-a', 'token-a']);
  });

  it('drops every principal when the connection to the bus comes back, since events may have been missed', async () => {
    const reconnected: Array<() => void> = [];
    const flaky: Bus = { ...bus, onReconnect: (listener) => { reconnected.push(listener); } };
    const own = createSessionCache(auth.clients, flaky);
    await own.start();
    try {
      await own.resolve('token-a');
      await own.resolve('token-a');
      expect(auth.calls).toEqual(['token-a']);
      for (const listener of reconnected) listener();
      await own.resolve('token-a');
      expect(auth.calls).toEqual(['token-a', 'token-a']);
    } finally {
      await own.stop();
    }
  });

  it('asks again with the event\'s version when the answer after an identity event is older, and caches the newer one', async () => {
    expect((await cache.resolve('token-a')).identityUpdatedAt).toBe('2026-01-01T00:00:00.000Z');
    auth.changeAtOwner('identity-a', '2026-01-01T00:00:05.000Z');
    await bus.publish('edge.identity.identity.updated', { id: 'identity-a', updatedAt: '2026-01-01T00:00:05.000Z' });
    await settle();
    expect((await cache.resolve('token-a')).identityUpdatedAt).toBe('2026-01-01T00:00:05.000Z');
    expect(auth.floorsAsked).toEqual(['2026-01-01T00:00:05.000Z']);
    await cache.resolve('token-a');
    // The floor was met: other tokens of the identity are not asked twice.
    expect(auth.calls).toEqual(['token-a', 'token-a', 'token-a']);
  });

  it('asks once after an identity event when the auth service already holds that version', async () => {
    await cache.resolve('token-b');
    await bus.publish('edge.identity.identity.updated', { id: 'identity-b', updatedAt: '2026-01-01T00:00:00.000Z' });
    await settle();
    await cache.resolve('token-b');
    expect(auth.calls).toEqual(['token-b', 'token-b']);
    expect(auth.floorsAsked).toEqual([]);
  });

  it('serves a principal no longer than its API session lasts', async () => {
    await cache.resolve('token-brief');
    await cache.resolve('token-brief');
    expect(auth.calls).toEqual(['token-brief']);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await cache.resolve('token-brief');
    expect(auth.calls).toEqual(['token-brief', 'token-brief']);
  });

  it('forgets a token with the answers it had with a bearer JWT, and nothing of other tokens', async () => {
    await cache.resolve('token-a');
    await cache.resolve('token-a', 'a-bearer-jwt');
    await cache.resolve('token-b');
    cache.forget('token-a');
    await cache.resolve('token-a');
    await cache.resolve('token-a', 'a-bearer-jwt');
    await cache.resolve('token-b');
    expect(auth.calls).toEqual(['token-a', 'token-a', 'token-b', 'token-a', 'token-a']);
  });

  describe('validating ahead', () => {
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    let brief: SessionCache;
    beforeEach(() => {
      // A 600 ms lifetime: validated ahead from 500 ms.
      brief = createSessionCache(auth.clients, bus, 600);
    });

    it('validates a token in use again in the background before its entry ends, so no request waits for it', async () => {
      await brief.resolve('token-a');
      await wait(520);
      auth.hold();
      // Answered from the entry while the validation ahead waits.
      expect((await brief.resolve('token-a')).apiSession?.identityId).toBe('identity-a');
      await settle();
      expect(auth.calls).toEqual(['token-a', 'token-a']);
      auth.release();
      await settle();
      await wait(100);
      // Past the first entry's end: the entry the validation ahead made answers.
      await brief.resolve('token-a');
      expect(auth.calls).toEqual(['token-a', 'token-a']);
    });

    it('drops the entry when the validation ahead is refused, so the next request is refused', async () => {
      await brief.resolve('token-a');
      await wait(520);
      auth.refused.add('token-a');
      await brief.resolve('token-a');
      await settle();
      await expect(brief.resolve('token-a')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
      expect(auth.calls).toEqual(['token-a', 'token-a', 'token-a']);
    });

    it('does not validate ahead an entry its API session\'s expiry ends', async () => {
      await brief.resolve('token-brief');
      await wait(50);
      await brief.resolve('token-brief');
      await settle();
      expect(auth.calls).toEqual(['token-brief']);
    });
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryBus, type Bus } from '@edge/bus';
import type { identity } from '@edge/proto';
import { createGate } from '@edge/testing';
import type { Clients } from '../clients.js';
import { createIdentityCache } from './identity-cache.js';

/** A stand-in identity service: answers each id with its current name, counting calls, optionally held. */
function identityStandIn() {
  const calls: string[] = [];
  const names: Record<string, string> = { a: 'alice', b: 'bob' };
  /** Ids locked out, until when (ISO time). */
  const lockouts: Record<string, string> = {};
  const gate = createGate();
  const clients = {
    identity: {
      async getIdentity({ id }: { id: string }) {
        calls.push(id);
        const name = names[id];
        await gate.passed();
        const until = lockouts[id];
        return { id, name, disabled: until !== undefined, disabledUntil: until } as identity.Identity__Output;
      },
    },
  } as unknown as Clients;
  return {
    clients, calls, names, lockouts, hold: gate.hold, release: gate.release,
  };
}

/** Lets the bus deliver what was published. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('identity cache', () => {
  let bus: Bus;
  let owner: ReturnType<typeof identityStandIn>;
  let cache: ReturnType<typeof createIdentityCache>;

  beforeEach(async () => {
    bus = createMemoryBus();
    owner = identityStandIn();
    cache = createIdentityCache(owner.clients, bus);
    await cache.start();
  });
  afterEach(async () => {
    await cache.stop();
    await bus.close();
  });

  it('asks once for requests of the same identity, together or later', async () => {
    owner.hold();
    const together = Promise.all([cache.get('a'), cache.get('a'), cache.get('a')]);
    await settle();
    owner.release();
    expect((await together).map((i) => i.name)).toEqual(['alice', 'alice', 'alice']);
    expect((await cache.get('a')).name).toBe('alice');
    expect(owner.calls).toEqual(['a']);
  });

  it('asks again after an event of that identity, and only of that one', async () => {
    await cache.get('a');
    await cache.get('b');
    owner.names.a = 'alicia';
    owner.names.b = 'bobby';
    await bus.publish('edge.identity.identity.updated', { id: 'a' });
    await settle();
    expect((await cache.get('a')).name).toBe('alicia');
    expect((await cache.get('b')).name).toBe('bob');
    await bus.publish('edge.identity.identity.environment', { id: 'b' });
    await settle();
    expect((await cache.get('b')).name).toBe('bobby');
    expect(owner.calls).toEqual(['a', 'b', 'a', 'b']);
  });

  it('does not keep an answer that an event overtook', async () => {
    owner.hold();
    const before = cache.get('a');
    await settle();
    await bus.publish('edge.identity.identity.updated', { id: 'a' });
    await settle();
    owner.release();
    await before;
    owner.names.a = 'alicia';
    expect((await cache.get('a')).name).toBe('alicia');
    expect(owner.calls).toEqual(['a', 'a']);
  });

  it('drops every identity when the connection to the bus comes back, and keeps none past its lifetime', async () => {
    const reconnected: Array<() => void> = [];
    const flaky: Bus = { ...bus, onReconnect: (listener) => { reconnected.push(listener); } };
    const own = createIdentityCache(owner.clients, flaky, 100);
    await own.start();
    try {
      await own.get('a');
      await own.get('a');
      for (const listener of reconnected) listener();
      await own.get('a');
      expect(owner.calls).toEqual(['a', 'a']);
      await new Promise((resolve) => setTimeout(resolve, 150));
      await own.get('a');
      expect(owner.calls).toEqual(['a', 'a', 'a']);
    } finally {
      await own.stop();
    }
  });

  it('keeps an identity locked out no longer than its lockout, which ends by itself', async () => {
    owner.lockouts.a = new Date(Date.now() + 200).toISOString();
    expect(await cache.get('a')).toMatchObject({ disabled: true });
    await cache.get('a');
    expect(owner.calls).toEqual(['a']);
    delete owner.lockouts.a;
    await new Promise((r) => setTimeout(r, 250));
    expect(await cache.get('a')).toMatchObject({ disabled: false });
    expect(owner.calls).toEqual(['a', 'a']);
  });
});

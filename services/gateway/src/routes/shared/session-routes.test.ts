import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { auth, identity } from '@edge/proto';
import type { Clients } from '../../clients.js';
import { uncachedIdentities } from '../../http/identity-cache.js';
import { createRouter } from '../../http/route.js';
import type { Principal, SessionCache } from '../../http/session-cache.js';
import { registerSessionRoutes } from './session-routes.js';

const SUMMARY: auth.IdentityAuthSummary__Output = {
  identityId: 'id-1', updbId: 'updb-1', updbUsername: 'from-the-auth-service', hasApiSession: true, isMfaEnabled: true,
} as auth.IdentityAuthSummary__Output;

/** The gateway's session routes over stand-in services; each call to them is recorded. */
async function currentIdentity(principal: Partial<Principal>) {
  const calls: string[] = [];
  const clients = {
    identity: {
      async getIdentity({ id }: { id: string }) {
        calls.push('GetIdentity');
        return { id, name: 'caller', typeId: 'Default', authPolicyId: 'default', roleAttributes: [], permissions: [], tagsJson: '{}', appDataJson: '{}' } as unknown as identity.Identity__Output;
      },
    },
    auth: {
      async getIdentityAuthSummaries({ identityIds }: { identityIds: string[] }) {
        calls.push('GetIdentityAuthSummaries');
        return { summaries: identityIds.map((identityId) => ({ ...SUMMARY, identityId })) };
      },
    },
  } as unknown as Clients;
  const cache = { resolve: async () => ({ apiSession: { id: 'session-1', identityId: 'id-1' }, ...principal }) } as unknown as SessionCache;
  const app = Fastify();
  registerSessionRoutes(createRouter(app, cache), '/edge/client/v1', clients, cache, uncachedIdentities(clients));
  const r = await app.inject({ method: 'GET', url: '/edge/client/v1/current-identity', headers: { 'zt-session': 'token' } });
  await app.close();
  return { status: r.statusCode, data: (r.json() as { data: Record<string, any> }).data, calls };
}

describe('GET /current-identity', () => {
  it('renders the authenticators and MFA state the principal carries, asking only for the identity', async () => {
    const got = await currentIdentity({ authSummary: { ...SUMMARY, updbUsername: 'from-the-principal', isMfaEnabled: false } });
    expect(got.status).toBe(200);
    expect(got.data).toMatchObject({ id: 'id-1', authenticators: { updb: { username: 'from-the-principal' } }, isMfaEnabled: false });
    expect(got.calls).toEqual(['GetIdentity']);
  });

  it('asks the auth service for them when the principal has none (an auth service older than the gateway)', async () => {
    const got = await currentIdentity({ authSummary: null as unknown as Principal['authSummary'] });
    expect(got.status).toBe(200);
    expect(got.data).toMatchObject({ id: 'id-1', authenticators: { updb: { username: 'from-the-auth-service' } }, isMfaEnabled: true, hasApiSession: true });
    expect(got.calls.sort()).toEqual(['GetIdentity', 'GetIdentityAuthSummaries']);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contracts, type IdentityServiceHandlers, type PkiServiceHandlers } from '@edge/proto';
import { silentLogger } from '@edge/logging';
import { createRpcServer, peerClient, peerClients, stubHandlers, type PeerTargets, type RequestContext } from './index.js';

// Two services on two servers: a client that took the wrong target would reach the wrong one.
const pkiServer = createRpcServer('pki', silentLogger(), { tls: null });
const identityServer = createRpcServer('identity', silentLogger(), { tls: null });
/** How much time each call had left when its handler ran. */
const budgets: Record<string, number> = {};
const remaining = (ctx: RequestContext) => (ctx.deadline ?? Number.POSITIVE_INFINITY) - Date.now();
let grpc: PeerTargets;

beforeAll(async () => {
  pkiServer.add<PkiServiceHandlers>(contracts.pki(), stubHandlers<PkiServiceHandlers>({
    async GetCaCerts(_req, ctx) {
      budgets.pki = remaining(ctx);
      return { pkcs7Base64: '', pem: 'pki-answered' };
    },
  }));
  identityServer.add<IdentityServiceHandlers>(contracts.identity(), stubHandlers<IdentityServiceHandlers>({
    async ListIdentityTypes(_req, ctx) {
      budgets.identity = remaining(ctx);
      return { identityTypes: [{ id: 'identity-answered', name: 'Default' }], meta: { totalCount: 1 } };
    },
  }));
  const [pkiPort, identityPort] = await Promise.all([pkiServer.listen('127.0.0.1:0'), identityServer.listen('127.0.0.1:0')]);
  const unused = '127.0.0.1:1';
  grpc = {
    deadlineMs: 7_000,
    targets: { pki: `127.0.0.1:${pkiPort}`, identity: `127.0.0.1:${identityPort}`, auth: unused, policy: unused, session: unused },
  };
});
afterAll(async () => {
  await Promise.all([pkiServer.stop(100), identityServer.stop(100)]);
});

describe('peer clients', () => {
  it('reach each service at its configured target with the configured deadline', async () => {
    const clients = peerClients(grpc, ['pki', 'identity'], { tls: null });
    try {
      expect((await clients.pki.getCaCerts({})).pem).toBe('pki-answered');
      expect((await clients.identity.listIdentityTypes({})).identityTypes.map((t) => t.id)).toEqual(['identity-answered']);
    } finally {
      clients.close();
    }
    for (const budget of [budgets.pki, budgets.identity]) {
      expect(budget).toBeGreaterThan(6_000);
      expect(budget).toBeLessThanOrEqual(7_000);
    }
  });

  it('take a deadline of their own when given one', async () => {
    const pki = peerClient(grpc, 'pki', { deadlineMs: 60_000, tls: null });
    try {
      await pki.getCaCerts({});
    } finally {
      pki.close();
    }
    expect(budgets.pki).toBeGreaterThan(59_000);
    expect(budgets.pki).toBeLessThanOrEqual(60_000);
  });

  it('close every client at once', async () => {
    const clients = peerClients(grpc, ['pki', 'identity'], { tls: null });
    await Promise.all([clients.pki.getCaCerts({}), clients.identity.listIdentityTypes({})]);
    clients.close();
    await expect(clients.pki.getCaCerts({})).rejects.toThrow();
    await expect(clients.identity.listIdentityTypes({})).rejects.toThrow();
  });
});

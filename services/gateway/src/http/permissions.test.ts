import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '@edge/config';
import type { Clients } from '../clients.js';
import { registerRoutes } from '../gateway.js';
import { MANAGEMENT_BASE } from '../routes/root.js';
import { PERMISSIONS, permits, routeRule } from './permissions.js';
import type { SessionCache } from './session-cache.js';

const admin = { isAdmin: true, permissions: [] };
const holder = (...permissions: string[]) => ({ isAdmin: false, permissions });

describe('management route permissions', () => {
  const registry = registerRoutes(Fastify(), loadConfig({}), {} as Clients, {} as SessionCache);
  const adminRoutes = registry.filter((r) => r.access === 'admin' && r.url.startsWith(`${MANAGEMENT_BASE}/`));

  it('knows the rule of every admin route of the Management API, so a new route is not silently admin only', () => {
    expect(adminRoutes.length).toBeGreaterThan(100);
    const unmapped = adminRoutes.filter((r) => routeRule(r.method, r.url.slice(MANAGEMENT_BASE.length)) === undefined);
    expect(unmapped.map((r) => `${r.method} ${r.url}`)).toEqual([]);
  });

  it('lets admin_readonly read every admin route and change none', () => {
    const readonly = holder('admin_readonly');
    for (const r of adminRoutes) {
      const rule = routeRule(r.method, r.url.slice(MANAGEMENT_BASE.length));
      const adminOnly = rule?.kind === 'admin';
      expect([r.method, r.url, permits(readonly, rule)]).toEqual([r.method, r.url, r.method === 'GET' && !adminOnly]);
      expect(permits(admin, rule)).toBe(true);
      expect(permits(holder(), rule)).toBe(rule?.kind === 'authenticated');
    }
  });

  // the entity and action each route declares in controller/internal/routes/*_router.go
  it.each([
    ['GET', '/services', 'service', 'read'],
    ['POST', '/services', 'service', 'create'],
    ['PATCH', '/services/:id', 'service', 'update'],
    ['DELETE', '/services/:id', 'service', 'delete'],
    ['GET', '/services/:id/service-policies', 'service-policy', 'read'],
    ['GET', '/services/:id/terminators', 'terminator', 'read'],
    ['GET', '/config-types/:id/configs', 'config', 'read'],
    ['GET', '/identities/:id/service-configs', 'identity', 'read'],
    ['POST', '/identities/:id/service-configs', 'identity', 'update'],
    ['DELETE', '/identities/:id/service-configs', 'identity', 'update'],
    ['DELETE', '/identities/:id/mfa', 'identity', 'update'],
    ['POST', '/identities/:id/disable', 'identity', 'update'],
    ['GET', '/identities/:id/policy-advice/:serviceId', 'service', 'read'],
    ['GET', '/identities/:id/enrollments', 'enrollment', 'read'],
    ['POST', '/edge-routers/:id/re-enroll', 'router', 'update'],
    ['GET', '/transit-routers', 'router', 'read'],
    ['POST', '/cas/:id/verify', 'ca', 'update'],
    ['POST', '/enrollments/:id/refresh', 'enrollment', 'update'],
    ['DELETE', '/api-sessions/:id', 'ops', 'delete'],
    ['GET', '/sessions/:id/route-path', 'ops', 'read'],
    ['GET', '/identity-role-attributes', 'identity', 'read'],
  ])('%s %s acts on %s with %s', (method, path, entity, action) => {
    expect(routeRule(method, path)).toEqual({ kind: 'entity', entity, action });
  });

  it('grants an entity every action on it, an entity action only that action', () => {
    const rule = (method: string, path: string) => routeRule(method, path);
    expect(permits(holder('auth-policy'), rule('DELETE', '/auth-policies/:id'))).toBe(true);
    expect(permits(holder('auth-policy'), rule('POST', '/identities'))).toBe(false);
    expect(permits(holder('auth-policy.read'), rule('GET', '/auth-policies'))).toBe(true);
    expect(permits(holder('auth-policy.read'), rule('POST', '/auth-policies'))).toBe(false);
    expect(permits(holder('auth-policy.create'), rule('GET', '/auth-policies/:id'))).toBe(false);
    expect(permits(holder('ops'), rule('GET', '/api-sessions'))).toBe(true);
  });

  it('keeps authenticators, the database and the summary to admins (and admin_readonly for authenticator reads)', () => {
    for (const p of [...PERMISSIONS].filter((x) => x !== 'admin_readonly')) {
      expect(permits(holder(p), routeRule('GET', '/authenticators'))).toBe(false);
      expect(permits(holder(p), routeRule('POST', '/authenticators'))).toBe(false);
      expect(permits(holder(p), routeRule('POST', '/database/snapshot'))).toBe(false);
    }
    expect(permits(holder('admin_readonly'), routeRule('GET', '/authenticators/:id'))).toBe(true);
    expect(permits(holder('admin_readonly'), routeRule('GET', '/summary'))).toBe(false);
  });
});

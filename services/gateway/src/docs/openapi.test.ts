import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '@edge/config';
import type { Clients } from '../clients.js';
import { registerRoutes } from '../gateway.js';
import type { RouteEntry } from '../http/route.js';
import type { SessionCache } from '../http/session-cache.js';
import { buildOpenApi, openApiPath } from './openapi.js';
import { APIS } from './routes.js';

/** Every route fastify really serves, as `METHOD path` under each API's base, in OpenAPI form. */
function servedRoutes() {
  const app = Fastify();
  const served: { method: string; url: string }[] = [];
  app.addHook('onRoute', (r) => {
    for (const m of [r.method].flat()) if (m !== 'HEAD') served.push({ method: m, url: r.url });
  });
  const registry = registerRoutes(app, loadConfig({}), {} as Clients, {} as SessionCache);
  return { served, registry };
}

function operations(doc: ReturnType<typeof buildOpenApi>): Set<string> {
  const ops = new Set<string>();
  for (const [path, methods] of Object.entries(doc.paths)) for (const m of Object.keys(methods)) ops.add(`${m.toUpperCase()} ${path}`);
  return ops;
}

describe('the served API documents', () => {
  const { served, registry } = servedRoutes();

  it.each(APIS.map((a) => [a.id, a] as const))('%s describes exactly the routes fastify serves under its base path', (_id, api) => {
    const doc = buildOpenApi(api, registry, '1');
    const expected = new Set<string>();
    for (const r of served) {
      const path = openApiPath(api.base, r.url);
      if (path) expected.add(`${r.method} ${path}`);
    }
    expect(expected.size).toBeGreaterThan(20);
    expect([...operations(doc)].sort()).toEqual([...expected].sort());
  });

  it('every operation id is unique and every path parameter is declared', () => {
    for (const api of APIS) {
      const doc = buildOpenApi(api, registry, '1');
      const ids = new Set<string>();
      for (const [path, methods] of Object.entries(doc.paths)) {
        for (const op of Object.values(methods) as { operationId: string; parameters?: { name: string }[] }[]) {
          expect(ids.has(op.operationId), op.operationId).toBe(false);
          ids.add(op.operationId);
          const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
          expect((op.parameters ?? []).map((p) => p.name)).toEqual(names);
        }
      }
    }
  });

  it('a route declared with a body schema documents that schema, an admin route its requirement', () => {
    const entries: RouteEntry[] = [
      { method: 'POST', url: '/edge/management/v1/widgets', access: 'admin', doc: { body: z.object({ name: z.string().min(1), size: z.number().int().optional() }), status: 201 } },
      { method: 'GET', url: '/edge/management/v1/widgets/:id', access: 'public', doc: {} },
      { method: 'GET', url: '/elsewhere', access: 'public', doc: {} },
    ];
    const doc = buildOpenApi(APIS[1]!, entries, '1');
    expect(Object.keys(doc.paths)).toEqual(['/widgets', '/widgets/{id}']);
    const post = doc.paths['/widgets']!.post as Record<string, any>;
    expect(post.requestBody.content['application/json'].schema).toMatchObject({
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', minLength: 1 }, size: { type: 'integer' } },
    });
    expect(post.security).toEqual([{ ztSession: [] }]);
    expect(post.responses['201']).toBeDefined();
    expect((doc.paths['/widgets/{id}']!.get as Record<string, any>).security).toEqual([]);
  });

  it('PEM bodies are documented as text, beside JSON where a route takes both', () => {
    const mgmt = buildOpenApi(APIS[1]!, registry, '1') as { paths: Record<string, Record<string, any>> };
    expect(Object.keys(mgmt.paths['/cas/{id}/verify']!.post.requestBody.content)).toEqual(['text/plain']);
    const client = buildOpenApi(APIS[0]!, registry, '1') as { paths: Record<string, Record<string, any>> };
    expect(Object.keys(client.paths['/enroll']!.post.requestBody.content)).toEqual(['application/json', 'text/plain']);
  });

  it('the bodies of the main create routes are documented', () => {
    const doc = buildOpenApi(APIS[1]!, registry, '1') as { paths: Record<string, Record<string, any>> };
    for (const path of ['/identities', '/services', '/service-policies', '/configs', '/cas', '/auth-policies']) {
      const schema = doc.paths[path]!.post.requestBody?.content['application/json'].schema;
      expect(schema?.type, path).toBe('object');
      expect(Object.keys(schema.properties).length, path).toBeGreaterThan(1);
    }
  });
});

import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createCors, installCors } from './cors.js';

/** An app with one route behind the CORS hook of `origins`. */
async function appWith(origins: string[]) {
  const app = Fastify();
  installCors(app, createCors(origins));
  app.get('/things', async () => ({ ok: true }));
  await app.ready();
  return app;
}

describe('CORS', () => {
  it('answers any origin with the literal * by default, as OpenZiti, never echoing it', async () => {
    const app = await appWith(['*']);
    const pre = await app.inject({ method: 'OPTIONS', url: '/anything', headers: { origin: 'https://any.example', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'zt-session' } });
    expect(pre.statusCode).toBe(200);
    expect(pre.headers).toMatchObject({ 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE', 'access-control-allow-headers': 'zt-session' });
    expect(pre.headers.vary).toBeUndefined();
    const get = await app.inject({ method: 'GET', url: '/things', headers: { origin: 'https://any.example' } });
    expect(get.json()).toEqual({ ok: true });
    expect(get.headers['access-control-allow-origin']).toBe('*');
    expect(get.headers['access-control-expose-headers']).toContain('zt-session');
    await app.close();
  });

  it('leaves requests without an Origin, and OPTIONS that are no preflight, to the routes', async () => {
    const app = await appWith(['*']);
    expect((await app.inject({ method: 'GET', url: '/things' })).headers['access-control-allow-origin']).toBeUndefined();
    expect((await app.inject({ method: 'OPTIONS', url: '/things', headers: { origin: 'https://any.example' } })).statusCode).toBe(404);
    await app.close();
  });
});

/**
 * Browser consoles on other origins call the APIs (CORS, as OpenZiti's controller answers it):
 * preflights from allowed origins succeed on every path, answers say which headers a page may
 * read, an origin not allowed gets no CORS header, and a real Chromium page on another origin
 * logs in and reads its identity with a zt-session header.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestController, type TestController } from './support/controller.js';

const CHROMIUM = process.env.EDGE_CHROMIUM ?? '/usr/bin/chromium';
const CONSOLE = 'https://console.example.com';
const M = '/edge/management/v1';
const C = '/edge/client/v1';

let c: TestController;
let page: Server;
let pageOrigin: string;
let admin: string;

beforeAll(async () => {
  // The console page: a plain-HTTP origin of its own, allowed below.
  page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>console</title>'));
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(page.address() as { port: number }).port}`;
  c = await startTestController({ env: { EDGE_CORS_ALLOWED_ORIGINS: `${CONSOLE},${pageOrigin}` } });
  admin = await c.login();
});
afterAll(async () => {
  await c?.stop();
  if (page?.listening) await new Promise((resolve) => page.close(resolve));
});

/** A preflight as a browser sends it before a request with a zt-session header. */
function preflight(path: string, origin: string, method = 'GET', headers = 'zt-session, content-type') {
  return c.http.request('OPTIONS', path, {
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers }, skipValidation: true,
  });
}

const corsHeaders = (h: Record<string, unknown>) => Object.keys(h).filter((k) => k.startsWith('access-control-'));

describe('CORS over HTTPS', () => {
  it('answers a preflight from an allowed origin on every path, root-path client API forms included', async () => {
    const paths = [`${M}/identities`, `${M}/identities/some-id`, `${C}/current-identity`, `${C}/authenticate?method=password`,
      '/authenticate?method=cert', '/version', '/', '/edge/v1/current-api-session', '/.well-known/est/cacerts', `${M}/identities/%zz`, '/no/such/path'];
    for (const path of paths) {
      const r = await preflight(path, CONSOLE, 'DELETE');
      expect(r.status, path).toBe(200);
      expect(r.headers['access-control-allow-origin'], path).toBe(CONSOLE);
      expect(r.headers['access-control-allow-credentials'], path).toBe('true');
      expect(r.headers['access-control-allow-methods'], path).toBe('GET, HEAD, POST, PUT, PATCH, DELETE');
      expect(r.headers['access-control-allow-headers'], path).toBe('zt-session, content-type');
      expect(String(r.headers.vary), path).toMatch(/Origin/);
      expect(r.headers['x-request-id'], path).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.text, path).toBe('');
    }
  });

  it('allows the headers clients send and leaves out others', async () => {
    const r = await preflight(`${M}/current-identity/mfa`, CONSOLE, 'DELETE', 'Authorization, MFA-Validation-Code, X-Not-Ours, ziti-token-issuer-id, x-request-id, traceparent');
    expect(r.headers['access-control-allow-headers']).toBe('authorization, mfa-validation-code, ziti-token-issuer-id, x-request-id, traceparent');
  });

  it('tells an allowed origin which answer headers it may read, on successes and errors', async () => {
    const ok = await c.http.get(`${M}/current-identity`, { session: admin, headers: { origin: CONSOLE }, expectStatus: 200 });
    const refused = await c.http.get(`${M}/identities`, { headers: { origin: CONSOLE }, expectStatus: 401 });
    for (const r of [ok, refused]) {
      expect(r.headers['access-control-allow-origin']).toBe(CONSOLE);
      expect(String(r.headers['access-control-expose-headers']).split(', '))
        .toEqual(expect.arrayContaining(['zt-session', 'expiration-seconds', 'expires-at', 'x-request-id']));
    }
  });

  it('gives an origin not allowed no CORS header, on a preflight or a request', async () => {
    const pre = await preflight(`${M}/identities`, 'https://evil.example');
    expect(pre.status).toBe(405);
    expect(corsHeaders(pre.headers)).toEqual([]);
    const get = await c.http.get(`${C}/version`, { headers: { origin: 'https://evil.example' }, expectStatus: 200 });
    expect(corsHeaders(get.headers)).toEqual([]);
    // an origin differing only by scheme or port is another origin
    expect(corsHeaders((await preflight('/version', 'http://console.example.com')).headers)).toEqual([]);
  });

  it('serves requests without an Origin as before', async () => {
    const r = await c.http.request('OPTIONS', `${M}/identities`, { skipValidation: true });
    expect(r.status).toBe(405);
    expect(corsHeaders(r.headers)).toEqual([]);
  });
});

describe('CORS in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (.ci/run does)`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  });
  afterAll(async () => browser?.close());

  /** Logs in and reads the current identity with fetch from a page at `origin`. */
  async function consoleSession(origin: string) {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    try {
      const tab = await context.newPage();
      await tab.goto(`${origin}/`);
      return await tab.evaluate(async ({ api, username, password }) => {
        try {
          const login = await fetch(`${api}/edge/management/v1/authenticate?method=password`, {
            method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }),
          });
          const token = login.headers.get('zt-session') ?? '';
          const me = await fetch(`${api}/edge/management/v1/current-identity`, { headers: { 'zt-session': token } });
          const body = (await me.json()) as { data?: { name?: string } };
          return { status: me.status, name: body.data?.name, tokenRead: token.length > 0, requestId: me.headers.get('x-request-id'), expiresAt: me.headers.get('expires-at') };
        } catch (e) {
          return { error: String(e) };
        }
      }, { api: c.running.url, username: ADMIN.username, password: ADMIN.password });
    } finally {
      await context.close();
    }
  }

  it('lets a page on an allowed origin log in and call the API with zt-session', async () => {
    const r = await consoleSession(pageOrigin);
    expect(r).toMatchObject({ status: 200, name: 'Default Admin', tokenRead: true });
    expect(r.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.expiresAt).toBeTruthy();
  });

  it('refuses a page on another origin', async () => {
    // localhost is another origin than 127.0.0.1, and not allowed
    const r = await consoleSession(pageOrigin.replace('127.0.0.1', 'localhost'));
    expect(r).toMatchObject({ error: expect.stringContaining('Failed to fetch') });
  });
});

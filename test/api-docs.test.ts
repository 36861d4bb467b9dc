import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from './support/controller.js';

/** Debian's Chromium, which `.ci/run` installs when it is missing. */
const CHROMIUM = process.env.EDGE_CHROMIUM ?? '/usr/bin/chromium';
const APIS = [
  { base: '/edge/client/v1', id: 'edge-client', title: 'Edge Client API', sample: '/current-identity' },
  { base: '/edge/management/v1', id: 'edge-management', title: 'Edge Management API', sample: '/identities' },
];

let c: TestController;
let browser: Browser;
beforeAll(async () => {
  c = await startTestController();
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (.ci/run does)`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
});
afterAll(async () => {
  await browser?.close();
  await c?.stop();
});

describe('API specs', () => {
  it.each(APIS)('$base/specs lists both documents, and each is served by id', async ({ base }) => {
    const list = await c.http.get(`${base}/specs`, { expectStatus: 200 });
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual(['edge-client', 'edge-management']);
    for (const api of APIS) {
      const detail = await c.http.get(`${base}/specs/${api.id}`, { expectStatus: 200 });
      expect(detail.body.data).toMatchObject({ id: api.id, name: api.title });
      const body = await c.http.get(`${base}/specs/${api.id}/spec`, { expectStatus: 200 });
      const doc = JSON.parse(body.body.data as string);
      expect(doc.openapi).toBe('3.0.3');
      expect(doc.servers).toEqual([{ url: api.base }]);
      expect(doc.paths[api.sample]?.get).toBeDefined();
      expect(doc.paths['/specs/{id}/spec'].get.security).toEqual([]);
    }
  });

  it('answers the OpenZiti id `swagger` with the document of the API asked', async () => {
    const client = await c.http.get('/edge/client/v1/specs/swagger/spec', { expectStatus: 200 });
    expect(JSON.parse(client.body.data).info.title).toBe('Edge Client API');
    const mgmt = await c.http.get('/edge/management/v1/specs/swagger/spec', { expectStatus: 200 });
    expect(JSON.parse(mgmt.body.data).info.title).toBe('Edge Management API');
  });

  it('answers an unknown spec or docs file with the 404 envelope', async () => {
    for (const path of ['/edge/client/v1/specs/nope', '/edge/management/v1/specs/nope/spec', '/edge/client/v1/docs/package.json', '/edge/client/v1/docs/..%2Fpackage.json']) {
      const r = await c.http.get(path, { skipValidation: true });
      expect(r.status, path).toBe(404);
      expect(r.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('documents the body of a create route with the schema its handler checks', async () => {
    const r = await c.http.get('/edge/management/v1/specs/edge-management/spec', { expectStatus: 200 });
    const post = JSON.parse(r.body.data).paths['/identities'].post;
    const schema = post.requestBody.content['application/json'].schema;
    expect(schema.required).toEqual(expect.arrayContaining(['name', 'type', 'isAdmin']));
    expect(post.security).toEqual([{ ztSession: [] }]);
    expect(Object.keys(post.responses)).toContain('201');
  });
});

describe('API reference pages', () => {
  it.each(APIS)('$base/docs renders in headless Chromium from this origin only', async ({ base, title, sample }) => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const origin = new URL(c.running.url).origin;
    const requested: string[] = [];
    const failures: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    page.on('requestfailed', (r) => failures.push(r.url()));
    page.on('pageerror', (e) => failures.push(e.message));
    try {
      const response = await page.goto(`${origin}${base}/docs`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toContain("default-src 'self'");
      await page.waitForSelector('.swagger-ui .info .title', { timeout: 30_000 });
      expect(await page.textContent('.swagger-ui .info .title')).toContain(title);
      // Operations start folded, one section per tag: every tag of the document is drawn, and
      // opening the sample's shows its operations.
      const doc = (await c.http.get(`${base}/docs/openapi.json`, { skipValidation: true })).body;
      const tags = new Set(Object.values(doc.paths as Record<string, Record<string, { tags: string[] }>>).flatMap((ops) => Object.values(ops).flatMap((o) => o.tags)));
      await page.waitForSelector('.opblock-tag', { timeout: 30_000 });
      expect(await page.$$eval('.opblock-tag', (els) => els.map((e) => e.getAttribute('data-tag')))).toEqual([...tags]);
      await page.click(`.opblock-tag[data-tag="${sample.slice(1)}"]`);
      await page.waitForSelector(`.opblock-summary-path[data-path="${sample}"]`, { timeout: 30_000 });
      expect(failures).toEqual([]);
      expect(requested.length).toBeGreaterThanOrEqual(4);
      for (const url of requested) expect(url.startsWith(`${origin}/`) || url.startsWith('data:'), url).toBe(true);
    } finally {
      await context.close();
    }
  });
});

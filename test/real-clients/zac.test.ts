/**
 * The real OpenZiti admin console (ZAC, openziti/ziti-console) against this controller, in a
 * headless Chromium: log in, every main list, an identity with an OTT enrollment, a simple
 * service (its intercept.v1 and host.v1 configs and its Dial and Bind policies), their detail
 * pages, and a deletion; every answer of the controller of 400 or more fails the test, except
 * those ZAC also gets from OpenZiti's controller (listed below). Runs only when ZAC_DIST names
 * the directory of the built console app (its index.html) and playwright-core can be imported
 * (see test/real-clients/zac/README.md); skipped otherwise.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, ADMIN, type TestController } from '../support/controller.js';
import { freePort } from '../support/infra.js';

const DIST = process.env.ZAC_DIST ?? '';
const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
/** playwright-core is no dependency of the project: PLAYWRIGHT_CORE names where it is installed. */
const PLAYWRIGHT = process.env.PLAYWRIGHT_CORE ?? 'playwright-core';
// Its types are not installed either.
const playwright: any = DIST ? await import(PLAYWRIGHT).catch(() => undefined) : undefined;
const READY = DIST !== '' && existsSync(join(DIST, 'index.html')) && existsSync(CHROMIUM) && playwright !== undefined;
if (!READY) {
  console.warn(`real ZAC test skipped: set ZAC_DIST to the built ziti-console app, with ${CHROMIUM} (CHROMIUM_BIN) and playwright-core (PLAYWRIGHT_CORE) at hand (test/real-clients/zac/README.md)`);
}

/**
 * Failed requests ZAC 4.5 makes against OpenZiti's controller too: the fabric API (dashboard
 * map, not served here), its own `filter=identity` on terminators (not a boolean expression),
 * and the related lists of a form not saved yet (`/<type>/undefined/...`).
 */
const EXPECTED = [/^\/fabric\/v1\//, /\/terminators\?.*filter=identity/, /\/undefined(\/|$)/];

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.html': 'text/html', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf' };

/** Serves the console's files, index.html for every route of the single-page app. */
function serveConsole(port: number): Promise<Server> {
  const server = createServer((req, res) => {
    let file = normalize(join(DIST, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)));
    if (!file.startsWith(normalize(DIST)) || !existsSync(file) || statSync(file).isDirectory()) file = join(DIST, 'index.html');
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

describe.skipIf(!READY)('the OpenZiti admin console (ZAC)', () => {
  let c: TestController;
  let server: Server;
  let browser: any;
  let page: any;
  let zac: string;
  let ctl: string;
  /** Every answer of the controller of 400 or more: `status METHOD path` and the body. */
  const failures: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    zac = `http://127.0.0.1:${port}`;
    server = await serveConsole(port);
    c = await startTestController({ env: { EDGE_CORS_ALLOWED_ORIGINS: zac } });
    ctl = c.running.url.replace(/\/$/, '');
    browser = await playwright!.chromium.launch({ executablePath: CHROMIUM });
    const ctx = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1500, height: 950 } });
    // Fonts and map tiles from the internet: not needed, and not reachable everywhere.
    await ctx.route((url: URL) => !url.href.startsWith(zac) && !url.href.startsWith(ctl), (r: { abort(): Promise<void> }) => r.abort());
    page = await ctx.newPage();
    page.on('response', async (r: { url(): string; status(): number; text(): Promise<string>; request(): { method(): string } }) => {
      const path = r.url().slice(ctl.length);
      if (!r.url().startsWith(ctl) || r.status() < 400 || EXPECTED.some((e) => e.test(path))) return;
      failures.push(`${r.status()} ${r.request().method()} ${path} ${(await r.text().catch(() => '')).slice(0, 400)}`);
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    server?.close();
    await c?.stop();
  });

  /** Types into an input so that ZAC's keyup handlers see the value. */
  const type = async (selector: string, value: string, enter = false) => {
    const input = page.locator(selector).first();
    await input.fill(value);
    await input.press(enter ? 'Enter' : 'End');
  };
  const settle = () => page.waitForTimeout(2500);
  const save = async () => {
    await page.locator('lib-form-header .save-button').first().click();
    await settle();
  };
  const rowCount = (name: string) => page.locator('.ag-center-cols-container .ag-row', { hasText: name }).count();

  it('logs in as the admin', async () => {
    await page.goto(`${zac}/login`);
    await settle();
    await type('lib-string-input input >> nth=0', 'this controller');
    await type('lib-string-input input >> nth=1', ctl);
    await page.click('text=Set Controller');
    await settle();
    await type('#Username', ADMIN.username);
    await type('#Password', ADMIN.password);
    await page.click('button.login-button');
    await page.waitForURL(/\/dashboard/, { timeout: 15_000 });
    await settle();
    expect(failures.splice(0)).toEqual([]);
  }, 60_000);

  it('creates an identity with an OTT enrollment and shows its detail page', async () => {
    await page.goto(`${zac}/identities/create`);
    await settle();
    await type('input[placeholder="Name this identity"]', 'zac-identity');
    await type('input[placeholder="Add attributes to group Identities"]', 'zac-users', true);
    await save();
    expect(await rowCount('zac-identity')).toBe(1);
    await page.locator('text=zac-identity').first().click();
    await settle();
    expect(page.url()).toMatch(/\/identities\/[^/]+$/);
    expect(await page.locator('text=DOWNLOAD JWT').count()).toBe(1);
    expect(failures.splice(0)).toEqual([]);
  }, 60_000);

  it('creates a simple service: two configs, the service and its Dial and Bind policies', async () => {
    await page.goto(`${zac}/services/simple`);
    await settle();
    await type('input[placeholder="Name this service"]', 'zac-service');
    await type('input[placeholder="Add attributes to group services"]', 'zac-services', true);
    await type('input[placeholder="Select identity attributes to grant access"]', 'zac-users', true);
    await type('#HowTo', 'zac-service.ziti');
    await page.locator('#HowToPort').pressSequentially('443');
    await type('input[placeholder="Select identity attributes"]', 'zac-users', true);
    await type('#HostedHost', '127.0.0.1');
    await page.locator('#HostedPort').pressSequentially('8080');
    await save();
    await settle();
    expect(await page.locator('text=EXECUTION SUMMARY').count()).toBe(1);
    expect(failures.splice(0)).toEqual([]);
  }, 60_000);

  it('shows every main list with its data', async () => {
    const lists: Array<[string, string | undefined]> = [
      ['identities', 'zac-identity'], ['services', 'zac-service'], ['configs', 'zac-service-intercept-config'],
      ['service-policies', 'zac-service-dial-policy'], ['router-policies', undefined], ['service-router-policies', undefined],
      ['posture-checks', undefined], ['routers', undefined], ['auth-policies', 'Default'], ['certificate-authorities', undefined],
      ['jwt-signers', undefined], ['config-types', 'intercept.v1'], ['terminators', undefined], ['api-sessions', undefined],
      ['sessions', undefined], ['attributes', 'zac-users'], ['dashboard', undefined],
    ];
    for (const [route, shows] of lists) {
      await page.goto(`${zac}/${route}`);
      await settle();
      if (shows) expect(await page.locator(`text=${shows}`).count(), route).toBeGreaterThan(0);
    }
    expect(failures.splice(0)).toEqual([]);
  }, 120_000);

  it('opens the detail pages of the service and its policy', async () => {
    for (const [route, name] of [['services', 'zac-service'], ['service-policies', 'zac-service-dial-policy'], ['configs', 'zac-service-host-config']]) {
      await page.goto(`${zac}/${route}`);
      await settle();
      await page.locator('.ag-center-cols-container .ag-row', { hasText: name }).first().locator('.ag-cell').first().click();
      await settle();
      expect(page.url(), route).toMatch(new RegExp(`/${route}/`));
    }
    expect(failures.splice(0)).toEqual([]);
  }, 60_000);

  it('deletes the identity from the list', async () => {
    await page.goto(`${zac}/identities`);
    await settle();
    const index = await page.locator('.ag-center-cols-container .ag-row', { hasText: 'zac-identity' }).first().getAttribute('row-index');
    await page.locator(`.ag-pinned-right-cols-container .ag-row[row-index="${index}"] .ag-cell`).first().click();
    await page.locator('text=Delete').last().click();
    await page.locator('button.confirm').first().click();
    await settle();
    expect(await rowCount('zac-identity')).toBe(0);
    expect(failures.splice(0)).toEqual([]);
  }, 60_000);
});

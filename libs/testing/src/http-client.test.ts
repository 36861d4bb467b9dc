import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient, edgeApiForPath, edgeApiPath, type HttpClient } from './http-client.js';
import { loadSpecValidator } from './spec-validator.js';

const M = '/edge/management/v1';

interface Seen {
  method?: string;
  url?: string;
  headers?: Record<string, string | string[] | undefined>;
  body?: string;
}

describe('createHttpClient', () => {
  let dir: string;
  let cert: string;
  let server: https.Server;
  let baseUrl: string;
  const seen: Seen = {};
  const clients: HttpClient[] = [];
  const client = (opts: Parameters<typeof createHttpClient>[0]): HttpClient => {
    const c = createHttpClient(opts);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'edge-testing-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'pipe' });
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    const key = readFileSync(join(dir, 'key.pem'), 'utf8');
    server = https.createServer({ cert, key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        Object.assign(seen, { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        const json = (status: number, body: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
          res.end(JSON.stringify(body));
        };
        const url = req.url ?? '';
        if (url === '/version') return json(200, { data: { version: 'v1' }, meta: {} });
        if (url === `${M}/identities` && req.method === 'POST') {
          return json(201, { data: { id: 'x', _links: { self: { href: './identities/x' } } }, meta: {} });
        }
        if (url.startsWith(`${M}/identities/bad`)) return json(200, { data: { id: 'bad', isAdmin: 'yes' }, meta: {} });
        if (url.startsWith(`${M}/identities/`)) {
          return json(404, { error: { code: 'NOT_FOUND', message: 'not found', requestId: 'r1' }, meta: {} });
        }
        if (url === '/.well-known/est/cacerts') {
          res.writeHead(200, { 'content-type': 'application/pkcs7-mime' });
          return res.end('MIIB');
        }
        json(200, { echo: true });
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const c of clients) c.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('verifies the server against the given CA and parses JSON', async () => {
    const c = client({ baseUrl, ca: cert });
    const res = await c.get('/version', { expectStatus: 200 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { version: 'v1' }, meta: {} });
    expect(res.text).toBe('{"data":{"version":"v1"},"meta":{}}');
    expect(res.headers['content-type']).toMatch(/application\/json/);
  });

  it('rejects a server whose certificate does not chain to the CA', async () => {
    const other = join(dir, 'other');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=other', '-keyout', `${other}.key`, '-out', `${other}.pem`,
    ], { stdio: 'pipe' });
    const c = client({ baseUrl, ca: readFileSync(`${other}.pem`) });
    await expect(c.get('/version')).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
  });

  it('accepts any certificate without a CA', async () => {
    const res = await client({ baseUrl }).get('/anything');
    expect(res.body).toEqual({ echo: true });
  });

  it('sends JSON bodies, raw bodies, the session header and extra headers', async () => {
    const c = client({ baseUrl, ca: cert });
    await c.post('/echo?x=1', { body: { name: 'alice' }, session: 'tok123', headers: { 'X-Extra': 'yes' } });
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/echo?x=1');
    expect(seen.body).toBe('{"name":"alice"}');
    expect(seen.headers?.['content-type']).toBe('application/json');
    expect(seen.headers?.['zt-session']).toBe('tok123');
    expect(seen.headers?.['x-extra']).toBe('yes');
    await c.patch('/echo', { rawBody: '{not json', headers: { 'content-type': 'text/plain' } });
    expect(seen.method).toBe('PATCH');
    expect(seen.body).toBe('{not json');
    expect(seen.headers?.['content-type']).toBe('text/plain');
    await c.delete('/echo');
    expect(seen.method).toBe('DELETE');
    expect(seen.headers?.['zt-session']).toBeUndefined();
  });

  it('throws a helpful error on an unexpected status', async () => {
    const c = client({ baseUrl, ca: cert });
    await expect(c.get(`${M}/identities/missing`, { expectStatus: 200 })).rejects.toThrow(
      /GET \/edge\/management\/v1\/identities\/missing: expected status 200, got 404[\s\S]*NOT_FOUND/,
    );
  });

  it('validates responses against the spec when given a validator', async () => {
    const c = client({ baseUrl, ca: cert, validator: loadSpecValidator() });
    const created = await c.post(`${M}/identities`, { body: { name: 'x' }, expectStatus: 201 });
    expect(created.body.data.id).toBe('x');
    const missing = await c.get(`${M}/identities/missing`, { expectStatus: 404 });
    expect(missing.body.error.code).toBe('NOT_FOUND');
    await expect(c.get(`${M}/identities/bad`)).rejects.toThrow(/detailIdentity[\s\S]*\/data\/isAdmin must be boolean/);
    const skipped = await c.get(`${M}/identities/bad`, { skipValidation: true });
    expect(skipped.body.data.isAdmin).toBe('yes');
    // not an Edge API path: not validated
    expect((await c.get('/fabric/v1/anything')).body).toEqual({ echo: true });
    // a root path is the client API's: checked against the client operation it is answered as
    await expect(c.get('/anything')).rejects.toThrow(/no operation in the client spec for GET \/edge\/client\/v1\/anything/);
    // non-JSON body on a root path
    expect((await c.get('/.well-known/est/cacerts')).body).toBe('MIIB');
    // root /version is validated against the client spec
    expect((await c.get('/version')).status).toBe(200);
  });

  it('infers the API from the path', () => {
    expect(edgeApiForPath('/edge/client/v1/current-api-session')).toBe('client');
    expect(edgeApiForPath('/edge/management/v1/identities?limit=1')).toBe('management');
    expect(edgeApiForPath('/version')).toBe('client');
    expect(edgeApiForPath('/authenticate?method=cert')).toBe('client');
    expect(edgeApiForPath('/edge/v1/services')).toBe('client');
    expect(edgeApiForPath('/fabric/v1/routers')).toBeUndefined();
    expect(edgeApiForPath('/edge/other')).toBeUndefined();
  });

  it('maps root and legacy paths to the client API paths they are answered as', () => {
    const C = '/edge/client/v1';
    expect(edgeApiPath('/')).toBe(`${C}/`);
    expect(edgeApiPath('/version')).toBe(`${C}/version`);
    expect(edgeApiPath('/authenticate?method=cert')).toBe(`${C}/authenticate?method=cert`);
    expect(edgeApiPath('/edge/v1')).toBe(C);
    expect(edgeApiPath('/edge/v1/current-api-session')).toBe(`${C}/current-api-session`);
    expect(edgeApiPath('/.well-known/est/cacerts')).toBe(`${C}/.well-known/est/cacerts`);
    for (const same of [`${C}/services`, `${M}/identities?limit=1`, '/fabric/v1/routers', '/.well-known/other', '/edge/other']) {
      expect(edgeApiPath(same)).toBe(same);
    }
  });
});

/**
 * Bad input over real HTTPS: every malformed request a logged-in (or anonymous) client can send
 * is a 4xx in the OpenZiti error envelope that names the field where there is one, echoes no
 * internals (no fastify code, no stack, no URL, no SQL), and changes nothing.
 *
 * Regression: NULs reached Postgres (500), JSON nested thousands deep overflowed the stack (500
 * or a 400 quoting `Maximum call stack size exceeded`), and fastify's own answers (414
 * FST_ERR_MAX_PARAM_LENGTH, 400 FST_ERR_BAD_URL, a bare 431) left the envelope.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { adminApi, M } from './support/admin-api.js';
import { useController, type TestController } from './support/controller.js';
import { rawExchange as raw } from './support/raw-http.js';

const C = '/edge/client/v1';
const ENVELOPE_META = { apiVersion: '0.0.1', apiEnrollmentVersion: '0.0.1' };
/** What must never appear in an answer to bad input. */
const INTERNALS = /FST_|call stack|stack size|SyntaxError|postgres|invalid byte sequence|\bat [\w.]+ \(|node_modules/i;

let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));
const api = adminApi(() => c, () => admin);

let identityId: string;
let configTypeId: string;
beforeAll(async () => {
  identityId = (await api.post('/identities', { name: 'bad-input-target', type: 'User', isAdmin: false, roleAttributes: ['kept'] })).body.data.id;
  configTypeId = (await api.post('/config-types', { name: 'bad-input-type', schema: { type: 'object' } })).body.data.id;
});

/** `depth` nested arrays around a string: `[[["x"]]]`. */
const nested = (depth: number) => '['.repeat(depth) + '"x"' + ']'.repeat(depth);
const NUL = '\u0000';

interface Case {
  name: string;
  method: string;
  path: () => string;
  /** A JSON body (serialised here) or a raw one. */
  body?: unknown;
  raw?: string;
  /** Send no session. */
  anonymous?: boolean;
  status: number;
  code: string;
  field?: string;
}

const cases: Case[] = [
  // NUL characters
  { name: 'NUL in a path id', method: 'GET', path: () => `${M}/identities/%00`, status: 404, code: 'NOT_FOUND' },
  { name: 'NUL inside a path id of an action', method: 'POST', path: () => `${M}/identities/ab%00cd/enable`, status: 404, code: 'NOT_FOUND' },
  { name: 'NUL in a client path id', method: 'GET', path: () => `${C}/services/x%00`, status: 404, code: 'NOT_FOUND' },
  { name: 'NUL in the filter', method: 'GET', path: () => `${M}/identities?filter=${encodeURIComponent(`name = "a${NUL}"`)}`, status: 400, code: 'INVALID_FILTER' },
  { name: 'NUL in a roleFilter', method: 'GET', path: () => `${M}/identities?roleFilter=%23a%00`, status: 400, code: 'COULD_NOT_VALIDATE', field: 'roleFilter' },
  { name: 'NUL in a query token, anonymously', method: 'POST', path: () => `${C}/enroll/updb?token=%00`, body: { password: 'x' }, anonymous: true, status: 400, code: 'COULD_NOT_VALIDATE', field: 'token' },
  { name: 'NUL in a JSON string', method: 'POST', path: () => `${M}/identities`, body: { name: `a${NUL}b`, type: 'User', isAdmin: false }, status: 400, code: 'COULD_NOT_VALIDATE', field: 'name' },
  { name: 'NUL in a tag value', method: 'POST', path: () => `${M}/identities`, body: { name: 'nul-tag', type: 'User', isAdmin: false, tags: { env: `x${NUL}` } }, status: 400, code: 'COULD_NOT_VALIDATE', field: 'tags.env' },
  { name: 'NUL in a tag name', method: 'POST', path: () => `${M}/identities`, body: { name: 'nul-tag-key', type: 'User', isAdmin: false, tags: { [`e${NUL}`]: 'x' } }, status: 400, code: 'COULD_NOT_VALIDATE', field: 'tags' },
  { name: 'NUL in a role attribute', method: 'PATCH', path: () => `${M}/identities/${identityId}`, body: { roleAttributes: ['ok', `a${NUL}`] }, status: 400, code: 'COULD_NOT_VALIDATE', field: 'roleAttributes.1' },
  { name: 'NUL in a policy role', method: 'POST', path: () => `${M}/service-policies`, body: { name: 'nul-role', type: 'Dial', semantic: 'AnyOf', identityRoles: [`#a${NUL}`], serviceRoles: [] }, status: 400, code: 'COULD_NOT_VALIDATE', field: 'identityRoles.0' },
  { name: 'NUL deep in config data', method: 'POST', path: () => `${M}/configs`, get body() { return { name: 'nul-config', configTypeId, data: { a: [{ b: NUL }] } }; }, status: 400, code: 'COULD_NOT_VALIDATE', field: 'data.a.0.b' },
  { name: 'NUL in a login, anonymously', method: 'POST', path: () => `${C}/authenticate?method=password`, body: { username: `admin${NUL}`, password: 'admin-password-1' }, anonymous: true, status: 400, code: 'COULD_NOT_VALIDATE', field: 'username' },
  { name: 'NUL in a PEM body', method: 'POST', path: () => `${C}/enroll?method=ott&token=x`, raw: `-----BEGIN CERTIFICATE REQUEST-----${NUL}`, anonymous: true, status: 400, code: 'COULD_NOT_PARSE_BODY' },
  // deep nesting
  { name: 'JSON nested 5,000 deep in a field', method: 'POST', path: () => `${M}/identities`, raw: `{"name":"deep","type":"User","isAdmin":false,"tags":{"t":${nested(5000)}}}`, status: 400, code: 'COULD_NOT_PARSE_BODY' },
  { name: 'JSON nested 100,000 deep, anonymously', method: 'POST', path: () => `${C}/authenticate?method=password`, raw: nested(100_000), anonymous: true, status: 400, code: 'COULD_NOT_PARSE_BODY' },
  { name: 'a filter nested 5,000 deep', method: 'GET', path: () => `${M}/identities?filter=${'('.repeat(5000)}true${')'.repeat(5000)}`, status: 400, code: 'INVALID_FILTER' },
  // path ids fastify cannot route
  { name: 'a path id over 100 characters', method: 'GET', path: () => `${M}/identities/${'a'.repeat(101)}`, status: 404, code: 'NOT_FOUND' },
  { name: 'a path id of 4,000 characters in an action', method: 'POST', path: () => `${M}/edge-routers/${'b'.repeat(4000)}/re-enroll`, status: 404, code: 'NOT_FOUND' },
  { name: 'bad percent-encoding in a path id', method: 'GET', path: () => `${M}/identities/%C0%AE`, status: 404, code: 'NOT_FOUND' },
  { name: 'a truncated escape in a path id', method: 'DELETE', path: () => `${M}/identities/ab%E0%A4`, status: 404, code: 'NOT_FOUND' },
  // a huge value a service's field error echoes (once a 503 at the call's deadline, and the next call too)
  { name: 'a 70,000-character value a service refuses', method: 'POST', path: () => `${C}/posture-response`, body: { id: 'x'.repeat(70_000), typeId: 'x'.repeat(70_000) }, status: 400, code: 'COULD_NOT_VALIDATE', field: 'typeId' },
  { name: 'the next call to that service', method: 'POST', path: () => `${C}/posture-response`, body: { id: 'x', typeId: 'nope' }, status: 400, code: 'COULD_NOT_VALIDATE', field: 'typeId' },
  // bodies fastify refuses
  { name: 'a content type no route takes', method: 'POST', path: () => `${M}/identities`, raw: '<identity/>', status: 400, code: 'COULD_NOT_PARSE_BODY' },
  { name: 'invalid JSON', method: 'POST', path: () => `${M}/identities`, raw: '{"name": ', status: 400, code: 'COULD_NOT_PARSE_BODY' },
  { name: 'a prototype-poisoning body', method: 'POST', path: () => `${M}/identities`, raw: '{"name":"p","type":"User","isAdmin":false,"__proto__":{"isAdmin":true}}', status: 400, code: 'COULD_NOT_PARSE_BODY' },
];

/** The content type a case's raw body is sent with. */
function contentType(k: Case): string {
  if (k.raw?.startsWith('<')) return 'application/xml';
  if (k.raw?.startsWith('-----')) return 'text/plain';
  return 'application/json';
}

/** The checks every answer to bad input passes: the envelope and nothing internal in it. */
function expectEnvelope(status: number, text: string, body: any, sentPath?: string) {
  expect(status).toBeGreaterThanOrEqual(400);
  expect(status).toBeLessThan(500);
  expect(Object.keys(body).sort()).toEqual(['error', 'meta']);
  expect(body.meta).toEqual(ENVELOPE_META);
  expect(body.error).toMatchObject({ code: expect.any(String), message: expect.any(String), requestId: expect.any(String) });
  expect(Object.keys(body.error).every((k) => ['code', 'message', 'requestId', 'cause', 'causeMessage', 'args'].includes(k))).toBe(true);
  expect(text).not.toMatch(INTERNALS);
  if (sentPath) expect(text).not.toContain(sentPath.split('?')[0]!.split('/').at(-1)!.slice(0, 60));
}

describe('bad input over HTTPS', () => {
  it.each(cases.map((k) => [k.name, k] as const))('%s: a 4xx envelope naming what is wrong', async (_name, k) => {
    const path = k.path();
    const payload = k.raw ?? (k.body === undefined ? undefined : JSON.stringify(k.body));
    const headers = payload === undefined ? undefined : { 'content-type': contentType(k) };
    const r = await c.http.request(k.method, path, { rawBody: payload, headers, session: k.anonymous ? undefined : admin, skipValidation: true });
    expect({ status: r.status, code: r.body?.error?.code }, r.text.slice(0, 400)).toEqual({ status: k.status, code: k.code });
    expectEnvelope(r.status, r.text, r.body, k.status === 404 ? path : undefined);
    if (k.field) expect(r.body.error.cause.field, r.text.slice(0, 400)).toBe(k.field);
  });

  it('changed nothing', async () => {
    const d = (await api.get(`/identities/${identityId}`)).body.data;
    expect(d.roleAttributes).toEqual(['kept']);
    const names = ['a\u0000b', 'nul-tag', 'nul-tag-key', 'deep', 'p'];
    const listed = (await api.get(`/identities?limit=500`)).body.data.map((i: { name: string }) => i.name);
    expect(listed.filter((n: string) => names.includes(n))).toEqual([]);
    expect((await api.get(`/service-policies?filter=${encodeURIComponent('name = "nul-role"')}`)).body.data).toEqual([]);
    expect((await api.get(`/configs?filter=${encodeURIComponent('name = "nul-config"')}`)).body.data).toEqual([]);
    // and the admin is still logged in
    await api.get('/current-identity');
  });
});

const rawExchange = (request: string) => raw(c.running, request);

describe('requests the HTTP parser refuses, over HTTPS', () => {
  const host = () => new URL(c.running.url).host;
  const rawCases = [
    { name: 'headers over the size limit', status: 431, code: 'REQUEST_HEADER_FIELDS_TOO_LARGE', request: () => `GET ${M}/identities HTTP/1.1\r\nHost: ${host()}\r\nzt-session: ${admin}\r\nx-big: ${'h'.repeat(20_000)}\r\n\r\n` },
    { name: 'a URL over the size limit', status: 431, code: 'REQUEST_HEADER_FIELDS_TOO_LARGE', request: () => `GET ${M}/identities?filter=${'u'.repeat(20_000)} HTTP/1.1\r\nHost: ${host()}\r\n\r\n` },
    { name: 'a malformed header line', status: 400, code: 'COULD_NOT_VALIDATE', request: () => `GET ${M}/identities HTTP/1.1\r\nHost: ${host()}\r\nbad header: x\r\n\r\n` },
    { name: 'a NUL in a header value', status: 400, code: 'COULD_NOT_VALIDATE', request: () => `GET ${M}/identities HTTP/1.1\r\nHost: ${host()}\r\nzt-session: a\u0000b\r\n\r\n` },
  ];
  it.each(rawCases.map((k) => [k.name, k] as const))('%s: the envelope, then the connection closes', async (_name, k) => {
    const r = await rawExchange(k.request());
    expect(r.status).toBe(k.status);
    expect(r.headers).toMatch(/content-type: application\/json/i);
    const body = JSON.parse(r.text);
    expect(body.error.code).toBe(k.code);
    expectEnvelope(r.status, r.text, body);
    expect(r.text).not.toContain('hhhhhhhh');
    expect(r.text).not.toContain('uuuuuuuu');
  });
});

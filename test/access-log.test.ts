/**
 * The access log and the audit events, read from the lines the controller writes: one info line
 * per request with who, what and how long, logins and management changes as audit events, the
 * request id on every answer, and no secret in any line.
 */
import { expect, describe, it } from 'vitest';
import { createLogger } from '@edge/logging';
import { ADMIN, useController, type TestController } from './support/controller.js';
import { rawExchange, rawHeader } from './support/raw-http.js';

const M = '/edge/management/v1';
const C = '/edge/client/v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Line = Record<string, any>;
const lines: Line[] = [];
const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as Line) } });

let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f), { log });

/** The access line of the request answered with `requestId` (written just after the answer). */
async function accessLine(requestId: string): Promise<Line> {
  await expect.poll(() => lines.find((l) => l.msg === 'request' && l.reqId === requestId), { timeout: 2_000 }).toBeDefined();
  return lines.find((l) => l.msg === 'request' && l.reqId === requestId)!;
}

/** The audit event of the request answered with `requestId`. */
async function auditLine(requestId: string): Promise<Line> {
  await expect.poll(() => lines.find((l) => l.audit === true && l.reqId === requestId), { timeout: 2_000 }).toBeDefined();
  return lines.find((l) => l.audit === true && l.reqId === requestId)!;
}

const requestId = (r: { headers: Record<string, unknown> }) => r.headers['x-request-id'] as string;

async function loginAnswer(username: string, password: string, expectStatus: number) {
  return c.http.post(`${M}/authenticate?method=password`, { body: { username, password }, expectStatus });
}

describe('access log', () => {
  it('logs each request at info: method, route and path, status, time, identity, API session, request id, address', async () => {
    const session = (await loginAnswer(ADMIN.username, ADMIN.password, 200)).body.data;
    const r = await c.http.get(`${M}/identities/no-such-identity`, { session: session.token, expectStatus: 404 });
    expect(requestId(r)).toMatch(UUID);
    const line = await accessLine(requestId(r));
    expect(line).toMatchObject({
      level: 30, service: 'gateway', method: 'GET', route: `${M}/identities/:id`, path: `${M}/identities/no-such-identity`, status: 404,
      identityId: session.identityId, apiSessionId: session.id, remoteAddress: '127.0.0.1',
    });
    expect(line.ms).toBeGreaterThanOrEqual(0);
    expect(line.audit).toBeUndefined();
  });

  it('answers with its own request id and logs the one a caller sent beside it', async () => {
    const r = await c.http.get(`${C}/version`, { headers: { 'x-request-id': 'caller-chosen-1' }, expectStatus: 200 });
    expect(requestId(r)).toMatch(UUID);
    expect(await accessLine(requestId(r))).toMatchObject({ callerRequestId: 'caller-chosen-1', route: `${C}/version`, status: 200 });
  });

  it('logs no token, password, token in a query or body', async () => {
    const r = await c.http.post(`${M}/identities`, { body: { name: 'logged-enrollee', type: 'User', isAdmin: false, enrollment: { updb: 'logged-enrollee' } }, session: admin, expectStatus: 201 });
    const detail = await c.http.get(`${M}/identities/${r.body.data.id}`, { session: admin, expectStatus: 200 });
    const token = detail.body.data.enrollment.updb.token as string;
    const redeemed = await c.http.post(`${C}/enroll/updb?token=${encodeURIComponent(token)}`, { body: { password: 'enrollee-secret-pw' }, expectStatus: 200 });
    const session = (await loginAnswer('logged-enrollee', 'enrollee-secret-pw', 200)).body.data.token as string;
    const me = await c.http.get(`${C}/current-identity`, { session, expectStatus: 200 });
    expect((await accessLine(requestId(redeemed))).query).toBe('token=[redacted]');
    await accessLine(requestId(me));
    const all = JSON.stringify(lines);
    for (const secret of [token, 'enrollee-secret-pw', ADMIN.password, session, admin]) expect(all).not.toContain(secret);
  });

  it('puts the request id on every answer: success, 401, 404, 405, 413, an undecodable path id, a parser refusal', async () => {
    const answers = [
      await c.http.get(`${C}/version`, { expectStatus: 200 }),
      await c.http.get(`${M}/identities`, { expectStatus: 401 }),
      await c.http.get(`${M}/no-such-family`, { expectStatus: 404, skipValidation: true }),
      await c.http.delete(`${M}/version`, { expectStatus: 405, skipValidation: true }),
      await c.http.post(`${M}/identities`, { rawBody: `{"name":"${'x'.repeat(1024 * 1024 + 10)}"}`, session: admin, expectStatus: 413, skipValidation: true }),
      await c.http.get(`${M}/identities/%zz`, { session: admin, expectStatus: 404, skipValidation: true }),
    ];
    for (const r of answers) {
      expect(requestId(r), String(r.status)).toMatch(UUID);
      if (r.status >= 400) expect(r.body.error.requestId, String(r.status)).toBe(requestId(r));
      expect((await accessLine(requestId(r))).status).toBe(r.status);
    }
    const host = new URL(c.running.url).host;
    const refused = await rawExchange(c.running, `GET ${M}/identities HTTP/1.1\r\nHost: ${host}\r\nbad header: x\r\n\r\n`);
    expect(refused.status).toBe(400);
    expect(rawHeader(refused, 'x-request-id')).toMatch(UUID);
    expect(JSON.parse(refused.text).error.requestId).toBe(rawHeader(refused, 'x-request-id'));
    await expect.poll(() => lines.find((l) => l.reqId === rawHeader(refused, 'x-request-id'))).toMatchObject({ status: 400, remoteAddress: '127.0.0.1' });
  });
});

describe('audit events', () => {
  it('logs each login with method, username or identity, address, outcome and reason', async () => {
    const failed = await loginAnswer(ADMIN.username, 'not-the-password', 401);
    expect(await auditLine(requestId(failed))).toMatchObject({
      level: 30, event: 'login', method: 'password', username: ADMIN.username, remoteAddress: '127.0.0.1', result: 'failure', status: 401, reason: 'INVALID_AUTH',
    });
    const ok = await loginAnswer(ADMIN.username, ADMIN.password, 200);
    expect(await auditLine(requestId(ok))).toMatchObject({
      event: 'login', method: 'password', username: ADMIN.username, identityId: ok.body.data.identityId, apiSessionId: ok.body.data.id, result: 'success', status: 200,
    });
    const odd = await c.http.post(`${C}/authenticate?method=telepathy`, { body: {}, expectStatus: 400 });
    expect(await auditLine(requestId(odd))).toMatchObject({ event: 'login', method: 'other', result: 'failure', reason: 'INVALID_AUTH_METHOD' });
    const bye = await c.http.delete(`${C}/current-api-session`, { session: ok.body.data.token, expectStatus: 200 });
    expect(await auditLine(requestId(bye))).toMatchObject({ event: 'logout', identityId: ok.body.data.identityId, apiSessionId: ok.body.data.id, result: 'success' });
    expect(JSON.stringify(lines)).not.toContain('not-the-password');
  });

  it('logs each management change with who made it, the entity and its id, and the outcome', async () => {
    const me = (await c.http.get(`${M}/current-api-session`, { session: admin, expectStatus: 200 })).body.data;
    const created = await c.http.post(`${M}/identities`, { body: { name: 'audited', type: 'User', isAdmin: false }, session: admin, expectStatus: 201 });
    const id = created.body.data.id as string;
    const who = { identityId: me.identityId, apiSessionId: me.id, remoteAddress: '127.0.0.1' };
    expect(await auditLine(requestId(created))).toMatchObject({
      event: 'change', action: 'POST', route: `${M}/identities`, entity: 'identities', entityId: id, ...who, result: 'success', status: 201,
    });
    const patched = await c.http.patch(`${M}/identities/${id}`, { body: { roleAttributes: ['audited'] }, session: admin, expectStatus: 200 });
    expect(await auditLine(requestId(patched))).toMatchObject({ event: 'change', action: 'PATCH', entity: 'identities', entityId: id, ...who, result: 'success' });
    const refused = await c.http.post(`${M}/services`, { body: { name: '' }, session: admin, expectStatus: 400 });
    expect(await auditLine(requestId(refused))).toMatchObject({ event: 'change', entity: 'services', ...who, result: 'failure', status: 400, reason: 'COULD_NOT_VALIDATE' });
    const deleted = await c.http.delete(`${M}/identities/${id}`, { session: admin, expectStatus: 200 });
    expect(await auditLine(requestId(deleted))).toMatchObject({ event: 'change', action: 'DELETE', entity: 'identities', entityId: id, ...who, result: 'success' });
    const read = await c.http.get(`${M}/identities`, { session: admin, expectStatus: 200 });
    await accessLine(requestId(read));
    expect(lines.find((l) => l.audit === true && l.reqId === requestId(read))).toBeUndefined();
  });

  it('logs a change a non-admin was refused, naming who tried', async () => {
    const created = await c.http.post(`${M}/identities`, { body: { name: 'not-an-admin', type: 'User', isAdmin: false, enrollment: { updb: 'not-an-admin' } }, session: admin, expectStatus: 201 });
    const token = (await c.http.get(`${M}/identities/${created.body.data.id}`, { session: admin, expectStatus: 200 })).body.data.enrollment.updb.token as string;
    await c.http.post(`${C}/enroll/updb?token=${encodeURIComponent(token)}`, { body: { password: 'plain-user-pw' }, expectStatus: 200 });
    const user = (await loginAnswer('not-an-admin', 'plain-user-pw', 200)).body.data;
    const r = await c.http.post(`${M}/services`, { body: { name: 'forbidden-service' }, session: user.token, expectStatus: 401 });
    expect(await auditLine(requestId(r))).toMatchObject({ event: 'change', entity: 'services', identityId: user.identityId, apiSessionId: user.id, result: 'failure', reason: 'UNAUTHORIZED' });
  });
});

/**
 * Every operation of the official specs is served: each path and method of client.yml (under
 * `/edge/client/v1`) and management.yml (under `/edge/management/v1`) is called as an admin,
 * and no answer may be the gateway's "no such route" 404, a 405 or a 500.
 *
 * How an unmatched route is told from a missing entity: both are 404 NOT_FOUND, as in OpenZiti
 * (WIRE.md: "unknown id or route"), but only the gateway's not-found handler answers with the
 * cause message `no route for <METHOD> <path>`, naming exactly the request it got. The last test
 * pins that answer, so a change to it fails here instead of letting every scan call pass.
 *
 * The answers are not checked against the specs' response schemas here (the family tests do
 * that with real bodies): a `{}` body or an unknown id gives whatever error the operation gives.
 *
 * What the scan changes: with unknown ids and `{}` bodies almost every write is refused. The
 * writes that need neither run for real, on this file's own controller: `POST /database/snapshot`
 * writes a snapshot into its temporary data directory, `POST /database/check-data-integrity`
 * starts a check of fresh data (so `fix-data-integrity` right after it is refused with 429 while
 * it runs, which still shows the route is there). The operations on the caller itself are kept
 * apart (`isCallerState`), and the admin session is checked before and after the scan.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { EDGE_BASE_PATHS, loadSpecValidator, type EdgeApi, type HttpResult, type SpecOperation } from '@edge/testing';
import { ADMIN, useController, type TestController } from './support/controller.js';
import { createPasswordIdentity } from './support/password-identity.js';

/**
 * Operations not served. Empty: every operation of both specs is served. Were one ever to be
 * dropped, it would have to be listed here, and the scan fails once a listed one is served.
 */
const NOT_YET_SERVED = new Set<string>();

/**
 * Operations that change the caller itself rather than an entity named by an id. The scan
 * leaves them out and calls them afterwards with a scratch admin of their own, so the main admin
 * session stays logged in and without MFA for the whole scan: `DELETE /current-api-session`
 * logs the caller out (called last), and `POST /current-identity/mfa` starts an MFA enrollment
 * that the other `/current-identity/mfa` operations then act on.
 */
const isCallerState = (op: SpecOperation) =>
  (op.method === 'DELETE' && op.path === '/current-api-session') || op.path.startsWith('/current-identity/mfa');

const APIS: EdgeApi[] = ['client', 'management'];
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

let c: TestController;
const sessions = {} as Record<EdgeApi, string>;
useController((f) => {
  c = f.c;
  sessions.management = f.admin;
});
beforeAll(async () => {
  sessions.client = (await c.http.post(`${EDGE_BASE_PATHS.client}/authenticate?method=password`, { body: ADMIN, expectStatus: 200 })).body.data.token;
});

const key = (api: EdgeApi, op: SpecOperation) => `${api} ${op.method} ${op.path}`;
const operations = (api: EdgeApi) => loadSpecValidator().operations(api);

/** The concrete path of an operation, each path parameter an id that names nothing. */
function concretePath(api: EdgeApi, op: SpecOperation): string {
  return EDGE_BASE_PATHS[api] + op.path.replace(/\{[^}]+\}/g, () => `nx${randomBytes(5).toString('hex')}`);
}

/** True when the gateway found no route for the request: its not-found handler answered. */
function isUnmatchedRoute(r: HttpResult, method: string, path: string): boolean {
  return r.status === 404 && r.body?.error?.code === 'NOT_FOUND' && r.body.error.causeMessage === `no route for ${method} ${path.split('?')[0]}`;
}

/** What is wrong with an answer: unmatched route, 405 or 500; undefined when it is served. */
async function problem(api: EdgeApi, op: SpecOperation, session: string): Promise<string | undefined> {
  const path = concretePath(api, op);
  const body = WITH_BODY.has(op.method) ? {} : undefined;
  const r = await c.http.request(op.method, path, { body, session, skipValidation: true });
  if (isUnmatchedRoute(r, op.method, path)) return 'no route';
  if (r.status === 405 || r.status >= 500) return `${r.status} ${r.text.slice(0, 300)}`;
  return undefined;
}

/** Calls every operation in `ops` with `session`; returns the problems by operation key. */
async function scan(api: EdgeApi, ops: SpecOperation[], session: string): Promise<Map<string, string>> {
  const problems = new Map<string, string>();
  for (const op of ops) {
    const p = await problem(api, op, session);
    if (p) problems.set(key(api, op), p);
  }
  return problems;
}

/** The unexpected problems and the allow-listed operations that are now served. */
function verdict(api: EdgeApi, ops: SpecOperation[], problems: Map<string, string>) {
  const unexpected = [...problems].filter(([k, p]) => !(NOT_YET_SERVED.has(k) && p === 'no route')).map(([k, p]) => `${k}: ${p}`);
  const nowServed = ops.map((op) => key(api, op)).filter((k) => NOT_YET_SERVED.has(k) && problems.get(k) !== 'no route');
  return { unexpected, nowServed };
}

describe.each(APIS)('every operation of the %s spec', (api) => {
  it('is served for an admin (apart from the operations not served yet)', async () => {
    const ops = operations(api).filter((op) => !isCallerState(op));
    await c.http.get(`${EDGE_BASE_PATHS[api]}/current-api-session`, { session: sessions[api], expectStatus: 200 });
    const problems = await scan(api, ops, sessions[api]);
    expect(verdict(api, ops, problems)).toEqual({ unexpected: [], nowServed: [] });
    // The admin was logged in before and after the scan, so every answer above came to an admin.
    await c.http.get(`${EDGE_BASE_PATHS[api]}/current-api-session`, { session: sessions[api], expectStatus: 200 });
  });

  it('serves the operations on the caller itself, logging out last', async () => {
    const ops = operations(api).filter(isCallerState);
    ops.sort((a, b) => Number(a.path === '/current-api-session') - Number(b.path === '/current-api-session'));
    expect(ops.at(-1)).toMatchObject({ method: 'DELETE', path: '/current-api-session' });
    const self = { username: `scan-self-${api}`, password: 'scan-self-password-1' };
    await createPasswordIdentity(c, sessions.management, self.username, self.password, true);
    const token = (await c.http.post(`${EDGE_BASE_PATHS[api]}/authenticate?method=password`, { body: self, expectStatus: 200 })).body.data.token as string;
    expect(verdict(api, ops, await scan(api, ops, token))).toEqual({ unexpected: [], nowServed: [] });
    await c.http.get(`${EDGE_BASE_PATHS[api]}/current-api-session`, { session: token, expectStatus: 401 });
  });

  it('answers an unknown path under the base path with the 404 envelope', async () => {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const path = `${EDGE_BASE_PATHS[api]}/no-such-things/${randomBytes(4).toString('hex')}`;
      const r = await c.http.request(method, path, { body: method === 'POST' ? {} : undefined, session: sessions[api], skipValidation: true });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({
        error: { code: 'NOT_FOUND', message: expect.any(String), requestId: expect.any(String), causeMessage: `no route for ${method} ${path}` },
        meta: { apiVersion: '0.0.1', apiEnrollmentVersion: '0.0.1' },
      });
      expect(isUnmatchedRoute(r, method, path)).toBe(true);
    }
  });
});

it('lists only operations of the specs as not served yet', () => {
  const known = new Set(APIS.flatMap((api) => operations(api).map((op) => key(api, op))));
  expect([...NOT_YET_SERVED].filter((k) => !known.has(k))).toEqual([]);
});

/**
 * Every write of both APIs (POST, PUT and PATCH of the official specs) sent bodies shaped from
 * its schema with values of every wrong kind: strings of 70,000 characters, huge and fractional
 * numbers, nulls, lists and objects where scalars belong; and every read (GET) of both sent
 * filters, sorts and paging made of ZitiQL's pieces in any order. Whatever is refused must be a
 * 4xx: never a 5xx. Deterministic (a fixed seed), as an admin, as a plain client and with no
 * session, on the entities the fixtures hold.
 *
 * Regression: a value of 70,000 characters echoed in a service's field error crossed gRPC as a
 * trailer past the client's limit, and that call and the next to the service answered 503.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { EDGE_SPEC_DIR_ENV, locateSpecDir } from '@edge/testing';
import { useController, type TestController } from './support/controller.js';
import { createPasswordIdentity } from './support/password-identity.js';

let c: TestController;
let admin: string;
useController((f) => ({ c, admin } = f));

/** A fixed sequence of pseudo-random numbers in [0, 1). */
function rng(seed: number) {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
}

/** The writes of one API: path, method and the schema of the body, resolved from the definitions. */
function writesOf(file: string) {
  const spec = parse(readFileSync(join(process.env[EDGE_SPEC_DIR_ENV] ?? locateSpecDir(), file), 'utf8'), { logLevel: 'error' });
  const defs = spec.definitions as Record<string, any>;
  const resolve = (s: any): any => (s?.$ref ? resolve(defs[String(s.$ref).split('/').pop()!]) : s);
  const properties = (schema: any): Record<string, any> => {
    const s = resolve(schema);
    let out: Record<string, any> = { ...(s?.properties ?? {}) };
    for (const part of s?.allOf ?? []) out = { ...out, ...properties(part) };
    return out;
  };
  const writes: Array<{ path: string; method: 'get' | 'post' | 'put' | 'patch'; properties: Record<string, any> }> = [];
  for (const [path, ops] of Object.entries(spec.paths as Record<string, any>)) {
    for (const method of ['get', 'post', 'put', 'patch'] as const) {
      const body = (ops[method]?.parameters ?? []).find((p: any) => p.in === 'body');
      if (ops[method]) writes.push({ path, method, properties: body ? properties(body.schema) : {} });
    }
  }
  return { writes, resolve };
}

/** Values of every wrong kind. */
function wrongValue(r: () => number, depth = 0): unknown {
  const kinds: Array<() => unknown> = [
    () => '', () => 'x', () => 'x'.repeat(70_000), () => '\u{1F600}'.repeat(3), () => '2020-13-45T99:99:99Z', () => '#all', () => '@nope', () => '-5',
    () => -1, () => 0, () => 1.5, () => 1e308, () => 9007199254740993, () => true, () => null,
    () => [], () => ['x', 1, null], () => ({}), () => ({ a: 1 }),
    () => (depth < 2 ? { nested: wrongValue(r, depth + 1) } : 'deep'), () => (depth < 2 ? [wrongValue(r, depth + 1)] : []),
  ];
  return kinds[Math.floor(r() * kinds.length)]!();
}

/** A body with some of the schema's fields, each a wrong value (a nested object's fields in turn), or not an object at all. */
function wrongBody(r: () => number, properties: Record<string, any>, resolve: (s: any) => any): unknown {
  if (r() < 0.05) return [[], 'text', 1, null][Math.floor(r() * 4)];
  const body: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    const inner = resolve(schema);
    if (inner?.type === 'object' && inner.properties && r() < 0.5) body[name] = wrongBody(r, inner.properties, resolve);
    else if (r() < 0.75) body[name] = wrongValue(r);
  }
  return body;
}

/** A query string of filter, sort and paging made of ZitiQL's pieces, in any order. */
function wrongQuery(r: () => number): string {
  const pieces = ['name', 'id', 'tags.env', 'roleAttributes', 'anyOf(roleAttributes)', 'count(roleAttributes)', 'isEmpty(x)', 'createdAt', 'and', 'or',
    'not', '(', ')', '=', '!=', '<', 'contains', 'in', '["a", 1]', 'between', '1', 'and 2', '"x"', 'null', 'true', 'datetime(2020-01-01T00:00:00Z)',
    'sort by', 'name desc', 'skip', 'limit', 'none', '-1', '99999999999', '"\u0000"', 'x'.repeat(3000)];
  const text = () => Array.from({ length: Math.floor(r() * 8) }, () => pieces[Math.floor(r() * pieces.length)]).join(' ');
  const number = () => ['', '0', '-1', '-7', '1.5', 'x', '500', '501', '100001', '9223372036854775808'][Math.floor(r() * 10)]!;
  return `filter=${encodeURIComponent(text())}&sort=${encodeURIComponent(text())}&limit=${number()}&offset=${number()}`;
}

/**
 * The callers of each pass, made before any: a pass's writes may disable, demote or re-enroll the
 * first identity of a list (the default admin), which must not end a later pass's session.
 */
const callers = new Map<string, string>();
beforeAll(async () => {
  for (const file of ['management.yml', 'client.yml']) {
    callers.set(`admin ${file}`, (await createPasswordIdentity(c, admin, `fuzz-admin-${file}`, 'a-good-password', true)).token);
    callers.set(`client ${file}`, (await createPasswordIdentity(c, admin, `fuzz-client-${file}`, 'a-good-password')).token);
  }
});

// Paths left out: they end the caller's session or start its MFA, which later requests need.
const LEFT_OUT = /authenticate|logout|current-api-session|mfa|database/;

describe.each([['management', 'management.yml', '/edge/management/v1'], ['client', 'client.yml', '/edge/client/v1']] as const)('requests to the %s API', (_api, file, base) => {
  it.each(['admin', 'client', 'anonymous'] as const)('answer bodies and queries of every wrong shape with a 4xx, never a 5xx (%s)', async (who) => {
    const session = who === 'anonymous' ? undefined : callers.get(`${who} ${file}`)!;
    // The caller's session is alive: the pass is not refused for its own sake.
    if (session) await c.http.get(`${base}/current-identity`, { session, expectStatus: 200, skipValidation: true });
    const { writes, resolve } = writesOf(file);
    const r = rng(42);
    const ids = new Map<string, string>();
    const idOf = async (collection: string) => {
      if (!ids.has(collection)) {
        const res = await c.http.get(`${base}${collection}?limit=1`, { session: callers.get(`admin ${file}`)!, skipValidation: true });
        ids.set(collection, String(res.body?.data?.[0]?.id ?? 'none'));
      }
      return ids.get(collection)!;
    };
    const failures: string[] = [];
    for (const w of writes.filter((x) => !LEFT_OUT.test(x.path))) {
      const collection = /^(\/[^/{]+)\/\{id\}/.exec(w.path)?.[1];
      const path = (collection ? w.path.replace('{id}', await idOf(collection)) : w.path).replace(/\{[^}]+\}/g, 'none');
      for (let i = 0; i < 20; i++) {
        const res = w.method === 'get'
          ? await c.http.request('GET', `${base}${path}?${wrongQuery(r)}`, { session, skipValidation: true })
          : await c.http.request(w.method.toUpperCase(), `${base}${path}`, { rawBody: JSON.stringify(wrongBody(r, w.properties, resolve)), headers: { 'content-type': 'application/json' }, session, skipValidation: true });
        if (res.status >= 500) failures.push(`${who}: ${w.method.toUpperCase()} ${path} → ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
    // and the caller was heard to the end, not refused for a session the pass itself ended
    if (session) await c.http.get(`${base}/current-identity`, { session, expectStatus: 200, skipValidation: true });
  }, 300_000);
});

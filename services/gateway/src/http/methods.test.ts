import { describe, expect, it } from 'vitest';
import { createMethodIndex } from './methods.js';
import type { RouteEntry } from './route.js';

const M = '/edge/management/v1';
const entry = (method: RouteEntry['method'], url: string): RouteEntry => ({ method, url, access: 'admin', doc: {} });

describe('methods a path is served with', () => {
  const index = createMethodIndex([
    entry('GET', `${M}/identities`), entry('POST', `${M}/identities`),
    entry('GET', `${M}/identities/:id`), entry('PATCH', `${M}/identities/:id`), entry('DELETE', `${M}/identities/:id`),
    entry('POST', `${M}/identities/:id/enable`),
    entry('GET', `${M}/identities/:id/service-configs`),
  ]);

  it('lists them, with HEAD beside GET', () => {
    expect(index.allowed(`${M}/identities`)).toEqual(['GET', 'HEAD', 'POST']);
    expect(index.allowed(`${M}/identities/abc?x=1`)).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
    expect(index.allowed(`${M}/identities/abc/enable`)).toEqual(['POST']);
    expect(index.allowed(`/edge//management/v1/identities`)).toEqual(['GET', 'HEAD', 'POST']);
  });

  it('lists none for a path no route has', () => {
    for (const path of [`${M}/identities/`, `${M}/nothing`, `${M}/identities/a/b/c`, '/']) {
      expect(index.allowed(path)).toEqual([]);
    }
  });
});

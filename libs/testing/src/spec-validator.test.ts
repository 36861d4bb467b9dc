import { describe, expect, it } from 'vitest';
import { loadSpecValidator, locateSpecDir } from './spec-validator.js';

const M = '/edge/management/v1';
const C = '/edge/client/v1';
const now = '2024-05-01T12:34:56.789Z';

const meta = { apiVersion: '0.0.1', apiEnrollmentVersion: '0.0.1' };

function identityDetail(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'abc123',
    createdAt: now,
    updatedAt: now,
    _links: { self: { href: './identities/abc123' } },
    tags: { env: 'dev', pinned: true, none: null },
    name: 'alice',
    type: { id: 'Default', name: 'Default', entity: 'identity-types', _links: { self: { href: './identity-types/Default' } } },
    typeId: 'Default',
    isDefaultAdmin: false,
    isAdmin: false,
    authenticators: { updb: { id: 'auth1', username: 'alice' } },
    enrollment: {},
    envInfo: {},
    sdkInfo: {},
    roleAttributes: ['blue'],
    hasEdgeRouterConnection: false,
    edgeRouterConnectionStatus: 'offline',
    hasApiSession: false,
    isMfaEnabled: false,
    serviceHostingPrecedences: {},
    serviceHostingCosts: {},
    defaultHostingCost: 0,
    defaultHostingPrecedence: 'default',
    authPolicyId: 'default',
    authPolicy: { id: 'default', name: 'Default', entity: 'auth-policies', _links: {} },
    externalId: null,
    disabled: false,
    disabledAt: null,
    disabledUntil: null,
    permissions: null,
    ...overrides,
  };
}

describe('loadSpecValidator', () => {
  const v = loadSpecValidator();

  it('is cached per directory', () => {
    expect(loadSpecValidator()).toBe(v);
    expect(loadSpecValidator(locateSpecDir())).toBe(v);
  });

  it('honours EDGE_SPEC_DIR and rejects a directory without specs', () => {
    const saved = process.env.EDGE_SPEC_DIR;
    try {
      process.env.EDGE_SPEC_DIR = locateSpecDir();
      expect(loadSpecValidator()).toBe(v);
      process.env.EDGE_SPEC_DIR = '/nonexistent-spec-dir';
      expect(() => loadSpecValidator()).toThrow(/has no client.yml/);
    } finally {
      if (saved === undefined) delete process.env.EDGE_SPEC_DIR;
      else process.env.EDGE_SPEC_DIR = saved;
    }
  });

  it('passes a valid listVersion envelope on root and base paths', () => {
    const body = {
      data: {
        version: 'v1.1.0',
        revision: 'abcdef',
        buildDate: '2024-01-01 00:00:00',
        runtimeVersion: 'node v20',
        capabilities: ['OIDC_AUTH'],
        apiVersions: {
          'edge-client': { v1: { path: C, apiBaseUrls: ['https://127.0.0.1:1280/edge/client/v1'] } },
          'edge-management': { v1: { path: M, apiBaseUrls: ['https://127.0.0.1:1280/edge/management/v1'] } },
        },
      },
      meta: {},
    };
    expect(v.operationId('client', 'GET', '/version')).toBe('listVersion');
    expect(v.validate('client', 'GET', '/version', 200, body)).toEqual([]);
    expect(v.validate('client', 'GET', `${C}/version`, 200, body)).toEqual([]);
    expect(v.validate('management', 'GET', `${M}/version`, 200, body)).toEqual([]);
    expect(() => v.assertValid('management', 'GET', `${M}/`, 200, body)).not.toThrow();
    expect(v.validate('client', 'GET', '/version', 200, { data: { version: 5 }, meta: {} })).toEqual([
      '/data/version must be string',
    ]);
  });

  it('passes a create envelope with a relative href', () => {
    const body = { data: { id: 'x', _links: { self: { href: './identities/x' } } }, meta: {} };
    expect(v.operationId('management', 'POST', `${M}/identities`)).toBe('createIdentity');
    expect(v.validate('management', 'POST', `${M}/identities`, 201, body)).toEqual([]);
    v.assertValid('management', 'POST', `${M}/identities`, 201, body);
  });

  it('passes an identityDetail with tags null and a query string', () => {
    const path = `${M}/identities/abc123?limit=5`;
    expect(v.operationId('management', 'get', path)).toBe('detailIdentity');
    expect(v.validate('management', 'get', path, 200, { data: identityDetail(), meta: {} })).toEqual([]);
    expect(v.validate('management', 'get', path, 200, { data: identityDetail({ tags: null }), meta: {} })).toEqual([]);
  });

  it('fails an identityDetail missing a required field, naming it', () => {
    const data = identityDetail();
    delete data.typeId;
    const errors = v.validate('management', 'GET', `${M}/identities/abc123`, 200, { data, meta: {} });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("'typeId'");
    expect(() => v.assertValid('management', 'GET', `${M}/identities/abc123`, 200, { data, meta: {} })).toThrow(
      /detailIdentity[\s\S]*typeId[\s\S]*"name": "alice"/,
    );
  });

  it('fails a wrong type', () => {
    const errors = v.validate('management', 'GET', `${M}/identities/abc123`, 200, {
      data: identityDetail({ isAdmin: 'yes' }),
      meta: {},
    });
    expect(errors).toEqual(['/data/isAdmin must be boolean']);
  });

  it('fails a bad date-time and a bad enum, but accepts nullable fields', () => {
    const errors = v.validate('management', 'GET', `${M}/identities/abc123`, 200, {
      data: identityDetail({ createdAt: 'yesterday', edgeRouterConnectionStatus: 'maybe', roleAttributes: null }),
      meta: {},
    });
    expect(errors.some((e) => e.startsWith('/data/createdAt must match format "date-time"'))).toBe(true);
    expect(errors.some((e) => e.startsWith('/data/edgeRouterConnectionStatus must be equal to one of'))).toBe(true);
    expect(errors).toHaveLength(2);
  });

  it('accepts null where OpenZiti answers an unset optional string of a signer with null, and only there', () => {
    const signer = (overrides: Record<string, unknown>) => ({
      id: 's1', createdAt: now, updatedAt: now, _links: { self: { href: './external-jwt-signers/s1' } }, tags: {},
      name: 'idp', externalAuthUrl: null, audience: 'edge', clientId: null, scopes: [], targetToken: 'ACCESS', enrollToCertEnabled: false, enrollToTokenEnabled: false,
      ...overrides,
    });
    expect(v.validate('client', 'GET', `${C}/external-jwt-signers`, 200, { data: [signer({})], meta: { pagination: { limit: 10, offset: 0, totalCount: 1 } } })).toEqual([]);
    const errors = v.validate('client', 'GET', `${C}/external-jwt-signers`, 200, { data: [signer({ name: null })], meta: { pagination: { limit: 10, offset: 0, totalCount: 1 } } });
    expect(errors.some((e) => e.startsWith('/data/0/name must be string'))).toBe(true);
  });

  it('checks a discriminated value against the subtype its discriminator names', () => {
    const failure = (check: Record<string, unknown>) => ({
      data: [{ apiSessionId: 'a', serviceId: 's', serviceName: 'n', sessionType: 'Dial', when: '2024-01-01T00:00:00Z', policyFailures: [{ policyId: 'p', policyName: 'q', checks: [check] }] }],
      meta: {},
    });
    const path = `${M}/identities/abc123/failed-service-requests`;
    const base = { postureCheckId: 'c', postureCheckName: 'n', postureCheckType: 'DOMAIN' };
    expect(v.validate('management', 'GET', path, 200, failure(base))).toEqual([
      expect.stringContaining("must have required property 'actualValue'"), expect.stringContaining("must have required property 'expectedValue'"),
    ]);
    expect(v.validate('management', 'GET', path, 200, failure({ ...base, actualValue: 'x.example', expectedValue: ['corp.example'] }))).toEqual([]);
    expect(v.validate('management', 'GET', path, 200, failure({ ...base, actualValue: ['x'], expectedValue: ['corp.example'] }))).not.toEqual([]);
    expect(v.validate('management', 'GET', path, 200, failure({ ...base, postureCheckType: 'NO_SUCH_TYPE' }))).toEqual([]);
  });

  it('passes a list envelope with int pagination', () => {
    const body = {
      data: [identityDetail()],
      meta: { pagination: { limit: 10, offset: 0, totalCount: 1 }, filterableFields: ['name'] },
    };
    expect(v.validate('management', 'GET', `${M}/identities?filter=true`, 200, body)).toEqual([]);
    expect(
      v.validate('management', 'GET', `${M}/identities`, 200, { data: [], meta: { pagination: { limit: 10 } } }),
    ).toEqual(["/meta/pagination must have required property 'offset'", "/meta/pagination must have required property 'totalCount'"]);
  });

  it('passes an error envelope for 404 of GET /identities/{id}', () => {
    const body = {
      error: {
        code: 'NOT_FOUND',
        message: 'The resource requested was not found or is no longer available',
        requestId: 'r1',
        causeMessage: '',
        args: { urlVars: { id: 'nope' } },
      },
      meta,
    };
    expect(v.validate('management', 'GET', `${M}/identities/nope`, 404, body)).toEqual([]);
    const withCause = {
      ...body,
      error: { ...body.error, code: 'COULD_NOT_VALIDATE', cause: { field: 'name', reason: 'duplicate', value: 'alice' } },
    };
    expect(v.validate('management', 'POST', `${M}/identities`, 400, withCause)).toEqual([]);
    expect(v.validate('management', 'GET', `${M}/identities/nope`, 404, { error: { code: 1 }, meta })).toEqual([
      '/error/code must be string',
    ]);
  });

  it('throws from assertValid for an undocumented status or operation', () => {
    expect(() => v.assertValid('management', 'GET', `${M}/identities/abc`, 418, {})).toThrow(
      /detailIdentity: status 418 is not documented/,
    );
    expect(() => v.assertValid('management', 'PUT', `${M}/version`, 200, {})).toThrow(/no operation/);
    expect(() => v.assertValid('management', 'GET', `${M}/no-such-thing`, 200, {})).toThrow(/no operation/);
    expect(v.operationId('management', 'GET', `${M}/no-such-thing`)).toBeUndefined();
  });

  it('matches GET /edge/client/v1/current-api-session in the client spec', () => {
    expect(v.operationId('client', 'GET', `${C}/current-api-session`)).toBe('getCurrentAPISession');
    const data = {
      id: 'sess1',
      createdAt: now,
      updatedAt: now,
      _links: { self: { href: './current-api-session' } },
      tags: {},
      token: 'tok',
      identity: { id: 'abc123', name: 'alice', entity: 'identities', _links: {} },
      identityId: 'abc123',
      configTypes: [],
      ipAddress: '127.0.0.1',
      authQueries: [],
      cachedUpdatedAt: now,
      isMfaRequired: false,
      isMfaComplete: false,
      authenticatorId: 'auth1',
      isCertExtendable: false,
      expiresAt: now,
      expirationSeconds: 1800,
    };
    expect(v.validate('client', 'GET', `${C}/current-api-session`, 200, { data, meta: {} })).toEqual([]);
    const { token: _token, ...noToken } = data;
    expect(v.validate('client', 'GET', `${C}/current-api-session`, 200, { data: noToken, meta: {} })).toEqual([
      "/data must have required property 'token'",
    ]);
  });

  it('matches literal and nested path templates', () => {
    expect(v.operationId('management', 'GET', `${M}/current-identity/mfa`)).toBe('detailMfa');
    expect(v.operationId('management', 'GET', `${M}/identities/abc/service-configs`)).toBe('listIdentitysServiceConfigs');
  });

  it('skips non-JSON responses given as text', () => {
    expect(v.validate('client', 'GET', '/.well-known/est/cacerts', 200, 'MIIB...')).toEqual([]);
    expect(v.operationId('client', 'GET', '/.well-known/est/cacerts')).toBe('listWellKnownCas');
  });

  it('lists every operation of a spec', () => {
    const ops = v.operations('management');
    expect(ops.length).toBeGreaterThan(150);
    expect(ops).toContainEqual({ method: 'GET', path: '/identities/{id}', operationId: 'detailIdentity' });
    expect(v.operations('client')).toContainEqual({ method: 'POST', path: '/authenticate', operationId: 'authenticate' });
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError, grpcListenAddr, loadConfig, schemaName } from './index.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c.http.addr).toBe('127.0.0.1:1280');
    expect(c.apiSessionTimeoutMinutes).toBe(30);
    expect(c.grpc.targets.identity).toBe('127.0.0.1:50053');
    expect(c.database.url).toBeUndefined();
    expect(grpcListenAddr(c, 'auth')).toBe('127.0.0.1:50051');
    expect(c.metrics.addr).toBeUndefined();
  });

  it('serves metrics only where EDGE_METRICS_ADDR says, and rejects an address without port', () => {
    expect(loadConfig({ EDGE_METRICS_ADDR: '0.0.0.0:9464' }).metrics.addr).toBe('0.0.0.0:9464');
    expect(() => loadConfig({ EDGE_METRICS_ADDR: '9464' })).toThrow(/EDGE_METRICS_ADDR/);
  });

  it('names every variable at fault', () => {
    try {
      loadConfig({ EDGE_HTTP_ADDR: 'nonsense', EDGE_API_SESSION_TIMEOUT_MINUTES: '-3', EDGE_NATS_SUBJECT_PREFIX: 'a b' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const msg = (e as Error).message;
      expect(msg).toContain('EDGE_HTTP_ADDR');
      expect(msg).toContain('EDGE_API_SESSION_TIMEOUT_MINUTES');
      expect(msg).toContain('EDGE_NATS_SUBJECT_PREFIX');
    }
  });

  it('treats empty variables as unset and prefixes schemas', () => {
    const c = loadConfig({ EDGE_ADMIN_PASSWORD: '', EDGE_DATABASE_SCHEMA_PREFIX: 't1_', EDGE_GRPC_LISTEN_ADDR: '0.0.0.0:9000' });
    expect(c.admin.password).toBeUndefined();
    expect(schemaName(c, 'policy')).toBe('t1_policy');
    expect(grpcListenAddr(c, 'policy')).toBe('0.0.0.0:9000');
  });
});

describe('the advertised address', () => {
  it('refuses to start when listening on every address without EDGE_ADVERTISED_ADDRESS, naming both variables and the value', () => {
    for (const listen of ['0.0.0.0:1280', '[::]:1280', '[0:0::0]:443', '0.0.0.0:0']) {
      expect(() => loadConfig({ EDGE_HTTP_ADDR: listen }), listen).toThrow(ConfigError);
      expect(() => loadConfig({ EDGE_HTTP_ADDR: listen })).toThrow(new RegExp(`EDGE_ADVERTISED_ADDRESS: unset, and EDGE_HTTP_ADDR "${listen.replace(/[[\]]/g, '\\$&')}"`));
    }
    // An empty variable counts as unset (as the Helm chart's ConfigMap renders a missing value).
    expect(() => loadConfig({ EDGE_HTTP_ADDR: '0.0.0.0:1280', EDGE_ADVERTISED_ADDRESS: '' })).toThrow(/EDGE_ADVERTISED_ADDRESS: unset/);
  });

  it('refuses an advertised address that is itself a wildcard', () => {
    expect(() => loadConfig({ EDGE_HTTP_ADDR: '0.0.0.0:1280', EDGE_ADVERTISED_ADDRESS: '0.0.0.0:443' })).toThrow(/EDGE_ADVERTISED_ADDRESS: "0.0.0.0:443" names no host/);
    expect(() => loadConfig({ EDGE_ADVERTISED_ADDRESS: '[::]:443' })).toThrow(/EDGE_ADVERTISED_ADDRESS: "\[::\]:443"/);
  });

  it('hands clients the advertised address, else a specific listen address', () => {
    expect(loadConfig({ EDGE_HTTP_ADDR: '0.0.0.0:1280', EDGE_ADVERTISED_ADDRESS: 'edge.example.com:443' }).http.advertisedAddress).toBe('edge.example.com:443');
    expect(loadConfig({ EDGE_HTTP_ADDR: '10.1.2.3:1280' }).http.advertisedAddress).toBe('10.1.2.3:1280');
    expect(loadConfig({ EDGE_HTTP_ADDR: '[::1]:1280' }).http.advertisedAddress).toBe('[::1]:1280');
    expect(loadConfig({}).http.advertisedAddress).toBe('127.0.0.1:1280');
  });

  it('allows any origin cross-origin by default, as OpenZiti, and takes a list of origins', () => {
    expect(loadConfig({}).http.corsAllowedOrigins).toEqual(['*']);
    expect(loadConfig({ EDGE_CORS_ALLOWED_ORIGINS: 'https://console.example.com, http://localhost:8080' }).http.corsAllowedOrigins)
      .toEqual(['https://console.example.com', 'http://localhost:8080']);
    for (const bad of ['console.example.com', 'https://console.example.com/', 'https://console.example.com/app', 'ftp://x.example', ' , ']) {
      expect(() => loadConfig({ EDGE_CORS_ALLOWED_ORIGINS: bad }), bad).toThrow(/EDGE_CORS_ALLOWED_ORIGINS/);
    }
  });
});


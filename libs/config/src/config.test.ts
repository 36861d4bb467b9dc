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

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

describe('messages about bad settings', () => {
  it('rejects a port above 65535 in every address variable, naming the variable and its value', () => {
    for (const variable of ['EDGE_HTTP_ADDR', 'EDGE_ADVERTISED_ADDRESS', 'EDGE_GRPC_LISTEN_ADDR', 'EDGE_METRICS_ADDR', 'EDGE_IDENTITY_GRPC_ADDR']) {
      expect(() => loadConfig({ [variable]: '127.0.0.1:99999' }), variable).toThrow(`${variable} "127.0.0.1:99999": port must be 0-65535`);
    }
    expect(() => loadConfig({ EDGE_POLICY_GRPC_ADDR: 'ipv4:127.0.0.1:50054,127.0.0.1:70000' })).toThrow(/EDGE_POLICY_GRPC_ADDR .*port must be 0-65535/);
    expect(loadConfig({ EDGE_HTTP_ADDR: '127.0.0.1:65535', EDGE_POLICY_GRPC_ADDR: 'dns:///policy:50054' }).http.addr).toBe('127.0.0.1:65535');
  });

  it('is one line naming each variable at fault with its value', () => {
    const err = (() => {
      try {
        loadConfig({ EDGE_HTTP_ADDR: 'nonsense', EDGE_LOG_LEVEL: 'loud' });
      } catch (e) {
        return e as Error;
      }
      throw new Error('no error');
    })();
    expect(err.message).not.toContain('\n');
    expect(err.message).toContain('EDGE_HTTP_ADDR "nonsense": expected host:port');
    expect(err.message).toContain('EDGE_LOG_LEVEL "loud"');
  });

  it('never shows a secret: passwords and keys are hidden, the password of a URL masked', () => {
    const messageOf = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error('no error');
    };
    const pw = messageOf({ EDGE_ADMIN_PASSWORD: 'abc' });
    expect(pw).toContain('EDGE_ADMIN_PASSWORD (value hidden)');
    expect(pw).not.toContain('abc');
    const url = messageOf({ EDGE_DATABASE_URL: 'postgres://edge:s3cr3t@db host/x' });
    expect(url).toContain('EDGE_DATABASE_URL "postgres://edge:***@db host/x"');
    expect(url).not.toContain('s3cr3t');
    expect(messageOf({ EDGE_NATS_URL: 'http://u:hunter2@nats:4222' })).toMatch(/EDGE_NATS_URL "http:\/\/u:\*\*\*@nats:4222": expected nats:\/\//);
  });

  it('accepts the NATS server lists nats.js takes', () => {
    for (const url of ['nats://127.0.0.1:4222', 'nats://a:4222,nats://b:4222', 'tls://u:p@nats.example.com:4222', 'nats:4222']) {
      expect(loadConfig({ EDGE_NATS_URL: url }).nats.url, url).toBe(url);
    }
  });

  it('takes the log format from EDGE_LOG_FORMAT, leaving it to the terminal when unset', () => {
    expect(loadConfig({}).log.format).toBeUndefined();
    expect(loadConfig({ EDGE_LOG_FORMAT: 'json' }).log.format).toBe('json');
    expect(() => loadConfig({ EDGE_LOG_FORMAT: 'xml' })).toThrow(/EDGE_LOG_FORMAT "xml"/);
  });
});

describe('EDGE_GRPC_TLS', () => {
  const token = 'a'.repeat(64);

  it('is off by default and mtls on request, with the join token', () => {
    expect(loadConfig({}).grpc.tls).toEqual({ mode: 'off', joinToken: undefined });
    expect(loadConfig({ EDGE_GRPC_TLS: 'mtls', EDGE_GRPC_JOIN_TOKEN: token }).grpc.tls).toEqual({ mode: 'mtls', joinToken: token });
  });

  it('refuses mtls without a join token, a short token and an unknown mode, never showing the token', () => {
    expect(() => loadConfig({ EDGE_GRPC_TLS: 'mtls' })).toThrow(/EDGE_GRPC_JOIN_TOKEN unset/);
    expect(() => loadConfig({ EDGE_GRPC_TLS: 'tls' })).toThrow(/EDGE_GRPC_TLS "tls"/);
    try {
      loadConfig({ EDGE_GRPC_TLS: 'mtls', EDGE_GRPC_JOIN_TOKEN: 'short-secret' });
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).toMatch(/EDGE_GRPC_JOIN_TOKEN \(value hidden\): at least 32/);
      expect((e as Error).message).not.toContain('short-secret');
    }
  });
});

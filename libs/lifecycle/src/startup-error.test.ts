import { describe, expect, it } from 'vitest';
import { loadConfig } from '@edge/config';
import { connectFailure, describeStartupFailure, explainListenFailure } from './startup-error.js';

const listenError = (code: string, address: string, port: number) => Object.assign(new Error(`listen ${code}`), { code, address, port });

describe('start-up failures an operator fixes', () => {
  const config = loadConfig({ EDGE_HTTP_ADDR: '127.0.0.1:1280', EDGE_METRICS_ADDR: '0.0.0.0:9464', EDGE_POLICY_GRPC_ADDR: '127.0.0.1:6054' });

  it('traces a port in use to the variable that names it', () => {
    expect(explainListenFailure(listenError('EADDRINUSE', '127.0.0.1', 1280), config)?.message).toBe('EDGE_HTTP_ADDR "127.0.0.1:1280": address in use');
    expect(explainListenFailure(listenError('EACCES', '0.0.0.0', 9464), config)?.message).toMatch(/^EDGE_METRICS_ADDR "0.0.0.0:9464": permission denied/);
    // grpc-js reports the address as host:port text (libs/rpc server.ts listenError)
    expect(explainListenFailure(Object.assign(new Error('x'), { code: 'EADDRINUSE', address: '127.0.0.1:6054' }), config)?.message).toBe('EDGE_POLICY_GRPC_ADDR "127.0.0.1:6054": address in use');
    expect(explainListenFailure(listenError('EADDRINUSE', '127.0.0.1', 4444), config)).toBeUndefined();
    expect(explainListenFailure(new Error('boom'), config)).toBeUndefined();
  });

  it('says in a few words why a server could not be reached, from Node, pg and NATS codes', () => {
    const cases: Array<[unknown, string]> = [
      [Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'connection refused'],
      [Object.assign(new Error('x'), { code: 'CONNECTION_REFUSED' }), 'connection refused'],
      [Object.assign(new Error('getaddrinfo ENOTFOUND db'), { code: 'ENOTFOUND' }), 'host not found'],
      [Object.assign(new Error('password authentication failed'), { code: '28P01' }), 'authentication failed'],
      [Object.assign(new Error('database "x" does not exist'), { code: '3D000' }), 'database does not exist'],
      [new Error('something else\nwith detail'), 'something else'],
    ];
    for (const [err, reason] of cases) expect(connectFailure('EDGE_DATABASE_URL', 'postgres://u:pw@db/x', err).message).toBe(`EDGE_DATABASE_URL "postgres://u:***@db/x": ${reason}`);
  });

  it('describes configuration and start-up errors, and leaves bugs to the log', () => {
    expect(describeStartupFailure(connectFailure('EDGE_NATS_URL', 'nats://n:4222', { code: 'TIMEOUT' }))).toBe('EDGE_NATS_URL "nats://n:4222": connection timed out');
    expect(() => loadConfig({ EDGE_LOG_LEVEL: 'loud' })).toThrow();
    expect(describeStartupFailure(new TypeError('undefined is not a function'), config)).toBeUndefined();
  });
});

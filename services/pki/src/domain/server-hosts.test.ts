import { describe, expect, it } from 'vitest';
import { coversNames, hostOf, requiredServerNames } from './server-hosts.js';

describe('server certificate names', () => {
  it('always carries loopback and skips a wildcard bind address', () => {
    expect(requiredServerNames({ addr: '0.0.0.0:1280', advertisedAddress: '0.0.0.0:1280', tlsSans: [] }))
      .toEqual({ dns: ['localhost'], ips: ['127.0.0.1', '::1'] });
  });

  it('adds the advertised host, the bound host and every configured SAN by form', () => {
    const names = requiredServerNames({ addr: '192.168.1.5:1280', advertisedAddress: 'Ctrl.Example.com:443', tlsSans: ['2001:DB8::1', 'edge.internal', '10.0.0.1'] });
    expect(names.dns).toEqual(['ctrl.example.com', 'localhost', 'edge.internal']);
    expect(names.ips).toEqual(['192.168.1.5', '127.0.0.1', '::1', '2001:db8::1', '10.0.0.1']);
  });

  it('reads hosts out of host:port and [v6]:port', () => {
    expect(hostOf('example.com:1280')).toBe('example.com');
    expect(hostOf('[fd00::1]:1280')).toBe('fd00::1');
  });

  it('knows when stored names cover the configured ones', () => {
    const names = requiredServerNames({ addr: '127.0.0.1:1280', advertisedAddress: 'a.example:1280', tlsSans: [] });
    expect(coversNames(['localhost', 'a.example', '127.0.0.1', '::1', 'extra'], names)).toBe(true);
    expect(coversNames(['localhost', '127.0.0.1', '::1'], names)).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { serverCertificateIssue } from './controller-chain.js';
import { requiredServerNames } from './server-hosts.js';

const names = requiredServerNames({ addr: '127.0.0.1:1280', advertisedAddress: 'ctrl.example:1280', tlsSans: [] });
const now = new Date('2030-01-01T00:00:00Z');
const days = (n: number) => new Date(now.getTime() + n * 864e5);
const sans = ['localhost', 'ctrl.example', '127.0.0.1', '::1'];

describe('server certificate re-issue', () => {
  it('issues when missing, when a configured host is not covered, or within 30 days of expiry', () => {
    expect(serverCertificateIssue(undefined, names, now)).toBe('missing');
    expect(serverCertificateIssue({ notAfter: days(300), sans: ['localhost', '127.0.0.1', '::1'] }, names, now)).toBe('hosts-changed');
    expect(serverCertificateIssue({ notAfter: days(29), sans }, names, now)).toBe('expiring');
  });

  it('keeps a certificate that covers every host and has more than 30 days left', () => {
    expect(serverCertificateIssue({ notAfter: days(31), sans }, names, now)).toBeUndefined();
  });
});

import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRootCa } from './certificates.js';
import { identityName, nameWithSuffix } from './ca-enrollment.js';

describe('identityName', () => {
  it('fills the placeholders, uses [caName]-[commonName] by default and the identity id for a missing requested name', async () => {
    const leaf = new X509Certificate((await createRootCa()).certPem);
    const ca = { id: 'ca1', name: 'acme', identityNameFormat: '' };
    expect(identityName({ ca, leaf, requestedName: '', identityId: 'id1' })).toBe('acme-Edge Controller Root CA');
    const format = '[caId]/[requestedName]/[identityId]/[unknown]';
    expect(identityName({ ca: { ...ca, identityNameFormat: format }, leaf, requestedName: '', identityId: 'id1' })).toBe('ca1/id1/id1/[unknown]');
    expect(identityName({ ca: { ...ca, identityNameFormat: format }, leaf, requestedName: 'kiosk', identityId: 'id1' })).toBe('ca1/kiosk/id1/[unknown]');
  });

  it('names the identity by its id when the format yields nothing (a certificate without a common name)', async () => {
    const leaf = new X509Certificate((await createRootCa()).certPem);
    const ca = { id: 'ca1', name: 'acme', identityNameFormat: '[commonName]' };
    const noCn = Object.create(leaf, { subject: { value: 'O=acme' } }) as X509Certificate;
    expect(identityName({ ca, leaf: noCn, requestedName: '', identityId: 'id1' })).toBe('id1');
  });

  it('suffixes a taken name with six digits', () => {
    expect(nameWithSuffix('acme-d1', 1)).toBe('acme-d1000001');
    expect(nameWithSuffix('acme-d1', 12)).toBe('acme-d1000012');
  });
});

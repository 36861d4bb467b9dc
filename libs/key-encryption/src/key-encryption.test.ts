import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptKey, deriveKey, encryptKey, KeyDecryptionError, keyFromConfigured, parseRawKey } from './key-encryption.js';

const pem = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n';

describe('private key encryption', () => {
  it('round-trips and does not contain the plaintext', () => {
    const kek = randomBytes(32);
    const sealed = encryptKey(pem, kek, 'server');
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain('PRIVATE KEY');
    expect(decryptKey(sealed, kek, 'server')).toBe(pem);
  });

  it('fails with a wrong key, a different context or tampered data', () => {
    const kek = randomBytes(32);
    const sealed = encryptKey(pem, kek, 'server');
    expect(() => decryptKey(sealed, randomBytes(32), 'server')).toThrow(KeyDecryptionError);
    expect(() => decryptKey(sealed, kek, 'root-ca')).toThrow(KeyDecryptionError);
    const raw = Buffer.from(sealed.slice(3), 'base64');
    raw[raw.length - 1]! ^= 1;
    expect(() => decryptKey(`v1:${raw.toString('base64')}`, kek, 'server')).toThrow(KeyDecryptionError);
  });

  it('uses a 64-hex or 44-char base64 configured key as is', async () => {
    const key = randomBytes(32);
    expect(parseRawKey(key.toString('hex'))).toEqual(key);
    expect(parseRawKey(key.toString('base64'))).toEqual(key);
    expect(parseRawKey('correct horse battery staple')).toBeUndefined();
    expect(await keyFromConfigured(key.toString('hex'), Buffer.alloc(0))).toEqual(key);
  });

  it('derives a passphrase with scrypt: same salt same key, other salt other key', async () => {
    const salt = randomBytes(16);
    const a = await deriveKey('correct horse battery staple', salt);
    expect(a).toHaveLength(32);
    expect(await keyFromConfigured('correct horse battery staple', salt)).toEqual(a);
    expect(await deriveKey('correct horse battery staple', randomBytes(16))).not.toEqual(a);
  });
});

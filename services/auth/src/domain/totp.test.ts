import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import { matchTotp, newTotpSecret, provisioningUrl } from './totp.js';

const at = (seconds: number) => new Date(seconds * 1000);
const code = (secret: string, seconds: number) => generate({ secret, epoch: seconds });

describe('TOTP', () => {
  const secret = newTotpSecret();
  const now = 1_800_000_015; // inside step 60000000
  const step = Math.floor(now / 30);

  it('makes 160-bit base32 secrets and an otpauth URL apps can scan', () => {
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(provisioningUrl(secret, 'ctrl.example', 'alice'));
    expect(url.protocol).toBe('otpauth:');
    expect(url.searchParams.get('secret')).toBe(secret);
    expect(url.searchParams.get('issuer')).toBe('ctrl.example');
    expect(decodeURIComponent(url.pathname)).toContain('alice');
  });

  it('accepts the current step and one step either side, naming the step', async () => {
    expect(await matchTotp(secret, await code(secret, now), undefined, at(now))).toBe(step);
    expect(await matchTotp(secret, await code(secret, now - 30), undefined, at(now))).toBe(step - 1);
    expect(await matchTotp(secret, await code(secret, now + 30), undefined, at(now))).toBe(step + 1);
  });

  it('refuses codes two steps away, malformed codes and codes of another secret', async () => {
    expect(await matchTotp(secret, await code(secret, now - 60), undefined, at(now))).toBeUndefined();
    expect(await matchTotp(secret, await code(secret, now + 60), undefined, at(now))).toBeUndefined();
    expect(await matchTotp(secret, '12345', undefined, at(now))).toBeUndefined();
    expect(await matchTotp(secret, 'abcdef', undefined, at(now))).toBeUndefined();
    expect(await matchTotp(newTotpSecret(), await code(secret, now), undefined, at(now))).toBeUndefined();
  });

  it('refuses a code of a step already used or earlier (replay)', async () => {
    const c = await code(secret, now);
    expect(await matchTotp(secret, c, step, at(now))).toBeUndefined();
    expect(await matchTotp(secret, await code(secret, now - 30), step, at(now))).toBeUndefined();
    expect(await matchTotp(secret, await code(secret, now + 30), step, at(now))).toBe(step + 1);
  });
});

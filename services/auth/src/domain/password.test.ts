import { describe, expect, it } from 'vitest';
import { hashPassword, randomPassword, verifyPassword } from './password.js';

async function elapsed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

describe('password', () => {
  it('hashes with a fresh salt in a self-describing format and verifies', async () => {
    const a = await hashPassword('s3cret');
    const b = await hashPassword('s3cret');
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('s3cret', a)).toBe(true);
    expect(await verifyPassword('S3cret', a)).toBe(false);
  });

  it('rejects a missing or unreadable hash', async () => {
    expect(await verifyPassword('x', undefined)).toBe(false);
    expect(await verifyPassword('x', 'plain-text')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$0$8$1$AA==$AA==')).toBe(false);
  });

  it('costs about as much for an unknown user as for a wrong password', async () => {
    const stored = await hashPassword('right');
    // the fastest of several runs, so a busy machine (tests run in parallel) does not decide it
    const fastest = async (fn: () => Promise<unknown>) => {
      let best = Infinity;
      for (let i = 0; i < 5; i++) best = Math.min(best, await elapsed(fn));
      return best;
    };
    const wrong = await fastest(() => verifyPassword('wrong', stored));
    const unknown = await fastest(() => verifyPassword('wrong', undefined));
    // the unknown path runs one full scrypt too, not a shortcut
    expect(unknown).toBeGreaterThan(wrong * 0.5);
  });

  it('generates 24-character base64url passwords', () => {
    expect(randomPassword()).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(randomPassword()).not.toBe(randomPassword());
  });
});

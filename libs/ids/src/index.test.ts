import { describe, expect, it } from 'vitest';
import { newId, newToken } from './index.js';

describe('newId', () => {
  it('mints ids of the asked length from the URL-safe alphabet, none twice across many pool refills', () => {
    const ids = Array.from({ length: 5_000 }, () => newId());
    expect(ids.every((id) => /^[0-9a-zA-Z]{10}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(newId(24)).toMatch(/^[0-9a-zA-Z]{24}$/);
  });

  it('uses every character of the alphabet about evenly (no modulo bias)', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 6_200; i++) for (const ch of newId()) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 62,000 characters: about 1,000 of each (a standard deviation of about 31). Bytes taken mod
    // 62 without dropping those from 248 would give the first 8 characters about 1,240.
    for (const n of counts.values()) expect(Math.abs(n - 1_000)).toBeLessThan(160);
  });
});

describe('newToken', () => {
  it('is 32 random bytes in base64url', () => {
    const t = newToken();
    expect(Buffer.from(t, 'base64url')).toHaveLength(32);
    expect(t).not.toBe(newToken());
  });
});

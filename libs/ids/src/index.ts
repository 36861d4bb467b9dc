import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * A new entity id: a short opaque string of 10 URL-safe characters, as OpenZiti's shortids
 * look. 62^10 ≈ 8e17 values; unique indexes in each store catch the improbable collision.
 */
export function newId(length = 10): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; out.length < length && i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 248) out += ALPHABET[b % 62]; // 248 = 4 * 62: no modulo bias
  }
  return out.length === length ? out : newId(length);
}

/** A random secret token (API session tokens, enrollment tokens): 32 bytes, base64url. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

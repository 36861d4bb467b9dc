import { randomBytes, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * Random bytes drawn from the system's generator a few kilobytes at a time: a hot path mints an
 * id per request (session creation), and one call into the generator per id cost more than the
 * id. Each byte is used once.
 */
const POOL = Buffer.alloc(4096);
let used = POOL.length;

function randomByte(): number {
  if (used === POOL.length) {
    randomFillSync(POOL);
    used = 0;
  }
  return POOL[used++]!;
}

/**
 * A new entity id: a short opaque string of 10 URL-safe characters, as OpenZiti's shortids
 * look. 62^10 ≈ 8e17 values; unique indexes in each store catch the improbable collision.
 */
export function newId(length = 10): string {
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    if (b < 248) out += ALPHABET[b % 62]; // 248 = 4 * 62: no modulo bias
  }
  return out;
}

/** A random secret token (API session tokens, enrollment tokens): 32 bytes, base64url. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

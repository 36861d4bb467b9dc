/**
 * Password hashing for updb authenticators: scrypt with a per-user salt, stored as a
 * self-describing string so the parameters can be raised later without a migration.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt cost parameters of newly hashed passwords (RFC 7914 interactive-login values). */
export const SCRYPT_PARAMS = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

interface ScryptHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

// Verified when the username is unknown, so that path costs one scrypt like a wrong password
// does and response time does not reveal which usernames exist. Matches no password.
const DUMMY_HASH = `scrypt$16384$8$1$${Buffer.alloc(SALT_LENGTH, 7).toString('base64')}$${Buffer.alloc(KEY_LENGTH, 0).toString('base64')}`;

function derive(password: string, salt: Buffer, h: Pick<ScryptHash, 'N' | 'r' | 'p'>, keyLength: number): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; allow twice that so stored parameters above the default work.
  const maxmem = 256 * h.N * h.r;
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, { N: h.N, r: h.r, p: h.p, maxmem }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

function parse(encoded: string): ScryptHash | undefined {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n! > 0)) return undefined;
  const salt = Buffer.from(parts[4]!, 'base64');
  const hash = Buffer.from(parts[5]!, 'base64');
  if (salt.length === 0 || hash.length === 0) return undefined;
  return { N: N!, r: r!, p: p!, salt, hash };
}

/** Hashes `password` with a fresh random salt: `scrypt$N$r$p$saltB64$hashB64`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const hash = await derive(password, salt, SCRYPT_PARAMS, KEY_LENGTH);
  const { N, r, p } = SCRYPT_PARAMS;
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/**
 * True when `password` matches `encoded`. With no stored hash (unknown user) or an unreadable
 * one, a dummy hash is verified instead and the answer is false, at the same cost.
 */
export async function verifyPassword(password: string, encoded: string | undefined): Promise<boolean> {
  const stored = encoded === undefined ? undefined : parse(encoded);
  const target = stored ?? parse(DUMMY_HASH)!;
  const candidate = await derive(password, target.salt, target, target.hash.length);
  const equal = timingSafeEqual(candidate, target.hash);
  return stored !== undefined && equal;
}

/** A random password for the default admin: 18 random bytes, 24 base64url characters. */
export function randomPassword(): string {
  return randomBytes(18).toString('base64url');
}

/** The password rules of an auth policy's updb section. */
export interface PasswordRules {
  minPasswordLength: number;
  requireMixedCase: boolean;
  requireNumberChar: boolean;
  requireSpecialChar: boolean;
}

/**
 * Why `password` breaks the rules, or undefined when it keeps them (as the updb enrollment of
 * OpenZiti checks the identity's auth policy). Passwords are at most 100 characters (the specs).
 */
export function passwordRuleBreach(password: string, rules: PasswordRules): string | undefined {
  if (password.length < rules.minPasswordLength) return `must be at least ${rules.minPasswordLength} characters`;
  if (password.length > 100) return 'must be at most 100 characters';
  if (rules.requireMixedCase && !(/\p{Lu}/u.test(password) && /\p{Ll}/u.test(password))) return 'must contain upper and lower case letters';
  if (rules.requireNumberChar && !/\p{Nd}/u.test(password)) return 'must contain a number';
  if (rules.requireSpecialChar && !/[^\p{L}\p{Nd}]/u.test(password)) return 'must contain a special character';
  return undefined;
}

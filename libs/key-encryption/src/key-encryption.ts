/**
 * Secrets at rest (private keys, TOTP secrets): AES-256-GCM under a 32-byte key-encryption key
 * (KEK), bound to what the secret belongs to, so a ciphertext copied onto another row does not
 * decrypt.
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';

/** Prefix of every stored ciphertext: the format version, so the scheme can change later. */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** scrypt cost for passphrase KEKs (N=2^15, r=8, p=1: ~32 MiB, tens of ms, once per start). */
const SCRYPT = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;

/** Thrown when a ciphertext does not decrypt: wrong KEK, wrong binding or tampered data. */
export class KeyDecryptionError extends Error {
  constructor(message = 'private key does not decrypt with the configured key-encryption key') {
    super(message);
    this.name = 'KeyDecryptionError';
  }
}

/**
 * The 32 bytes a configured key-encryption key stands for when it is one already: 64 hex
 * characters, or 44 base64 characters decoding to 32 bytes. Undefined for a passphrase.
 */
export function parseRawKey(configured: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(configured)) return Buffer.from(configured, 'hex');
  if (/^[A-Za-z0-9+/]{43}=$/.test(configured)) {
    const bytes = Buffer.from(configured, 'base64');
    if (bytes.length === 32) return bytes;
  }
  return undefined;
}

/** Derives a 32-byte KEK from a passphrase with scrypt and the installation's salt. */
export function deriveKey(passphrase: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(passphrase, salt, 32, SCRYPT, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** The KEK from configuration: used as is when it is 32 raw bytes, else scrypt-derived. */
export async function keyFromConfigured(configured: string, salt: Buffer): Promise<Buffer> {
  return parseRawKey(configured) ?? deriveKey(configured, salt);
}

/** A fresh random salt for `deriveKey`, stored once per installation. */
export function newSalt(): Buffer {
  return randomBytes(16);
}

/** Encrypts `plaintext` under `kek`, bound to `context` (authenticated, not secret). */
export function encryptKey(plaintext: string, kek: Buffer, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', checkedKek(kek), iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

/** Decrypts what `encryptKey` produced with the same `kek` and `context`; throws KeyDecryptionError otherwise. */
export function decryptKey(stored: string, kek: Buffer, context: string): string {
  const [version, payload] = stored.split(':', 2);
  if (version !== VERSION || !payload) throw new KeyDecryptionError('unknown private key encryption format');
  const raw = Buffer.from(payload, 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new KeyDecryptionError('truncated encrypted private key');
  const decipher = createDecipheriv('aes-256-gcm', checkedKek(kek), raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new KeyDecryptionError();
  }
}

function checkedKek(kek: Buffer): Buffer {
  if (kek.length !== 32) throw new Error('key-encryption key must be 32 bytes');
  return kek;
}

/**
 * Key pairs, PEM conversion and serial numbers for the controller's certificates, over Node's
 * WebCrypto.
 */
import { randomBytes, webcrypto } from 'node:crypto';

type Crypto = webcrypto.Crypto;
type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;
import * as x509 from '@peculiar/x509';

/**
 * ECDSA P-256 with SHA-256: the OpenZiti C SDK verifies enrollment JWTs with the key of the
 * server certificate and accepts ES256, and every TLS stack speaks it.
 */
export const KEY_ALGORITHM: webcrypto.EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
/** The signature algorithm of every certificate this service issues (ecdsaWithSHA256). */
export const SIGNING_ALGORITHM: webcrypto.EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };

/**
 * The WebCrypto every certificate operation uses. Also installed as @peculiar/x509's default
 * provider, so its helpers that take no explicit crypto agree with ours.
 */
export function nodeCrypto(): Crypto {
  const crypto = webcrypto;
  x509.cryptoProvider.set(crypto);
  return crypto;
}

/** Generates an extractable signing key pair. */
export async function generateKeyPair(): Promise<CryptoKeyPair> {
  return nodeCrypto().subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
}

/** Exports a private key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`). */
export async function exportPrivateKeyPem(key: CryptoKey): Promise<string> {
  const der = await nodeCrypto().subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

/** Imports a PKCS#8 PEM private key for signing certificates. */
export async function importPrivateKeyPem(pem: string): Promise<CryptoKey> {
  const der = x509.PemConverter.decodeFirst(pem);
  return nodeCrypto().subtle.importKey('pkcs8', der, KEY_ALGORITHM, true, ['sign']);
}

/**
 * A random positive 128-bit serial number in hex. The first byte is kept in 0x01..0x7f so the
 * DER INTEGER is positive and needs no padding byte (RFC 5280 §4.1.2.2).
 */
export function randomSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) || 0x01;
  return bytes.toString('hex');
}

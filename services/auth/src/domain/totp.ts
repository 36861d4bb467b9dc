/**
 * TOTP (RFC 6238) as authenticator apps speak it: 6 digits, SHA1, 30 s steps. A code is
 * accepted one step either side of now (OpenZiti allows more; one step covers normal clock
 * drift), and only for a step later than the last one used, so no code works twice.
 */
import { generateSecret, generateURI, verify } from 'otplib';

export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
/** Steps accepted either side of the current one. */
export const TOTP_TOLERANCE_STEPS = 1;
/** Bytes of a new secret (160 bits, as RFC 4226 recommends). */
const SECRET_BYTES = 20;

/** A new random secret, base32 as authenticator apps expect it. */
export function newTotpSecret(): string {
  return generateSecret({ length: SECRET_BYTES });
}

/** The otpauth:// URL an authenticator app scans: issuer and account label shown to the user. */
export function provisioningUrl(secret: string, issuer: string, label: string): string {
  return generateURI({ issuer, label, secret, algorithm: 'sha1', digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS });
}

/**
 * The time step `code` belongs to when it is valid for `secret` within the tolerance and later
 * than `afterStep`; undefined otherwise. The caller records the step so it cannot be replayed.
 */
export async function matchTotp(secret: string, code: string, afterStep: number | undefined, now = new Date()): Promise<number | undefined> {
  if (!new RegExp(`^\\d{${TOTP_DIGITS}}$`).test(code)) return undefined;
  const epoch = Math.floor(now.getTime() / 1000);
  const result = await verify({
    secret,
    token: code,
    algorithm: 'sha1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    epoch,
    epochTolerance: TOTP_TOLERANCE_STEPS * TOTP_PERIOD_SECONDS,
    ...(afterStep === undefined ? {} : { afterTimeStep: afterStep }),
  });
  return result.valid ? Math.floor(epoch / TOTP_PERIOD_SECONDS) + result.delta : undefined;
}

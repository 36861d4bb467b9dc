/**
 * An authenticator app for tests: codes from an MFA provisioning URL. The controller accepts
 * each TOTP step once and only steps later than the last one used, so `next()` hands out
 * increasing steps (waiting for the next 30 s step when the current window is used up).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { generate } from 'otplib';

const PERIOD = 30;

export interface TestAuthenticator {
  secret: string;
  /** A code of a step not handed out before. */
  next(): Promise<string>;
  /** The code handed out last again (a replay). */
  last(): Promise<string>;
}

export function authenticatorFor(provisioningUrl: string): TestAuthenticator {
  const secret = new URL(provisioningUrl).searchParams.get('secret');
  if (!secret) throw new Error(`no secret in ${provisioningUrl}`);
  let lastStep = -1;
  const codeOf = (step: number) => generate({ secret, epoch: step * PERIOD });
  return {
    secret,
    async next() {
      for (;;) {
        const step = Math.floor(Date.now() / 1000 / PERIOD);
        // the current step or the next one: both are inside the controller's ±1 step window
        const pick = Math.max(step, lastStep + 1);
        if (pick <= step + 1) {
          lastStep = pick;
          return codeOf(pick);
        }
        await sleep((step + 1) * PERIOD * 1000 - Date.now() + 100);
      }
    },
    async last() {
      return codeOf(lastStep);
    },
  };
}

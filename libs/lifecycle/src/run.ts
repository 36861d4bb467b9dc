/**
 * Explicit process lifecycle: start, run until a signal, stop with a grace period, then force.
 */
import type { Config } from '@edge/config';
import type { Logger } from '@edge/logging';
import { exitAfterFailedStart } from './startup-error.js';

/** Anything that starts and stops: a service, the gateway, the whole controller. */
export interface Runnable {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts `runnable` and stops it on SIGTERM or SIGINT. If stopping takes longer than
 * `graceMs`, the process exits with code 1 anyway. A failed start exits 1: with one line naming
 * the setting at fault when it is the operator's to fix (see startup-error.ts; `config` lets a
 * port in use be traced to its variable), else with the error logged.
 */
export async function runUntilSignal(runnable: Runnable, log: Logger, graceMs = 10_000, config?: Config): Promise<void> {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    const force = setTimeout(() => {
      log.error({ graceMs }, 'grace period over, forcing exit');
      process.exit(1);
    }, graceMs);
    force.unref();
    try {
      await runnable.stop();
      log.info('stopped');
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'error while stopping');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  try {
    await runnable.start();
  } catch (err) {
    await runnable.stop().catch(() => undefined);
    exitAfterFailedStart(err, log, config);
  }
}

/** Runs stop functions in reverse order of registration, collecting rather than stopping at errors. */
export function createStack() {
  const fns: Array<() => Promise<unknown> | unknown> = [];
  return {
    defer(fn: () => Promise<unknown> | unknown) {
      fns.push(fn);
    },
    async unwind(): Promise<void> {
      const errors: unknown[] = [];
      while (fns.length) {
        const fn = fns.pop()!;
        try {
          await fn();
        } catch (e) {
          errors.push(e);
        }
      }
      if (errors.length) throw errors[0];
    },
  };
}

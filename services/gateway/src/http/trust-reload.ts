/**
 * Keeps the CA bundle the TLS layer verifies client certificates against current: verified CAs
 * enabled for authentication join and leave it as the pki service announces changes (every
 * replica reloads), with a periodic refresh in case an announcement was missed.
 */
import type { Server } from 'node:tls';
import type { Bus, Subscription } from '@edge/bus';
import { CA_EVENTS } from '@edge/events';
import type { Logger } from '@edge/logging';
import type { TlsMaterial } from './app.js';

const REFRESH_MS = 60_000;

/** Starts reloading; returns the function that stops it. */
export async function startTrustReload(server: Server, fetchTls: () => Promise<TlsMaterial>, bus: Bus, log: Logger): Promise<() => Promise<void>> {
  let current = '';
  const reload = async () => {
    try {
      const tls = await fetchTls();
      if (tls.ca === current) return;
      server.setSecureContext({ cert: tls.cert, key: tls.key, ca: tls.ca, minVersion: 'TLSv1.2' });
      if (current !== '') log.info('reloaded the CA bundle trusted for client certificates');
      current = tls.ca;
    } catch (err) {
      log.warn({ err }, 'could not reload the trusted CA bundle');
    }
  };
  await reload();
  const sub: Subscription = await bus.subscribe(CA_EVENTS, reload);
  const timer = setInterval(() => void reload(), REFRESH_MS).unref();
  return async () => {
    clearInterval(timer);
    await sub.unsubscribe();
  };
}

/**
 * What the identity service learns from the auth service's events: the environment (envInfo,
 * sdkInfo) a client reported when it authenticated, recorded on its identity. Login does not call
 * this service for it; the consumer is durable and a repeat writes the same values again. A login
 * that reported no environment changes nothing here.
 */
import type { Bus, Subscription } from '@edge/bus';
import { isZitiError } from '@edge/errors';
import { API_SESSION_CREATED, type ApiSessionCreatedEvent, type Received } from '@edge/events';
import type { Logger } from '@edge/logging';
import { parseJson } from './domain/identity.js';
import type { IdentityStore } from './store/identity.js';

const CONSUMER_GROUP = 'identity';

/** A JSON object from a reported field, or undefined when absent or not an object. */
function reported(field: string, json: unknown): Record<string, unknown> | undefined {
  if (typeof json !== 'string' || json === '') return undefined;
  try {
    return parseJson(field, json);
  } catch {
    return undefined;
  }
}

/** Starts the consumers; the caller unsubscribes them on stop. */
export async function startAuthConsumers(bus: Bus, store: Pick<IdentityStore, 'updateEnvironment'>, log: Logger): Promise<Subscription[]> {
  return [
    await bus.consume<Received<ApiSessionCreatedEvent>>(CONSUMER_GROUP, API_SESSION_CREATED, async (msg) => {
      const { identityId, envInfoJson, sdkInfoJson } = msg.data ?? {};
      if (typeof identityId !== 'string' || identityId === '') return;
      const env = reported('envInfo', envInfoJson);
      const sdk = reported('sdkInfo', sdkInfoJson);
      // Most logins report nothing: no write, and no environment event for caches to act on.
      if (!env && !sdk) return;
      try {
        await store.updateEnvironment(identityId, env, sdk);
      } catch (err) {
        // The identity went meanwhile: there is nothing to record it on.
        if (isZitiError(err) && err.code === 'NOT_FOUND') return;
        log.warn({ err, identityId }, 'could not record an identity environment');
        throw err;
      }
    }),
  ];
}

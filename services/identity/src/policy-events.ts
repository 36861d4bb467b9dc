/**
 * An identity's own service configs go with the service or config they name (both owned by the
 * policy service). Consumers are durable and idempotent; the integrity check reports (and fixes)
 * whatever was deleted while no replica ran.
 */
import type { Bus, Subscription } from '@edge/bus';
import type { Logger } from '@edge/logging';
import type { ServiceConfigStore } from './service-config-store.js';

const CONSUMER_GROUP = 'identity';

/** Starts the consumers; the caller unsubscribes them on stop. */
export async function startPolicyConsumers(bus: Bus, serviceConfigs: ServiceConfigStore, log: Logger): Promise<Subscription[]> {
  const on = (subject: string, column: 'service_id' | 'config_id') =>
    bus.consume<{ id?: unknown }>(CONSUMER_GROUP, subject, async (msg) => {
      const id = msg.data?.id;
      if (typeof id !== 'string' || id === '') {
        log.warn({ subject: msg.subject }, 'event without an id, ignored');
        return;
      }
      const removed = await serviceConfigs.removeNaming(column, id);
      if (removed > 0) log.info({ subject: msg.subject, id, removed }, 'identity service configs removed with what they named');
    });
  return Promise.all([on('edge.policy.service.deleted', 'service_id'), on('edge.policy.config.deleted', 'config_id')]);
}

/**
 * An identity's own service configs go with the service or config they name, and a router's
 * configs with the config (both owned by the policy service), as OpenZiti's foreign-key sets
 * unlink them. Consumers are durable and idempotent; the integrity check reports (and fixes)
 * whatever was deleted while no replica ran.
 */
import type { Bus, Subscription } from '@edge/bus';
import { CONFIG_DELETED, SERVICE_DELETED, type PolicyChangeEvent, type Received } from '@edge/events';
import type { Logger } from '@edge/logging';
import type { RouterStore } from './store/router.js';
import type { ServiceConfigStore } from './store/service-config.js';

const CONSUMER_GROUP = 'identity';

/** What the consumers change. */
export interface PolicyConsumerDeps {
  serviceConfigs: ServiceConfigStore;
  routers: Pick<RouterStore, 'removeConfig'>;
  log: Logger;
}

/** Starts the consumers; the caller unsubscribes them on stop. */
export async function startPolicyConsumers(bus: Bus, { serviceConfigs, routers, log }: PolicyConsumerDeps): Promise<Subscription[]> {
  const on = (subject: string, handle: (id: string) => Promise<void>) =>
    bus.consume<Received<PolicyChangeEvent>>(CONSUMER_GROUP, subject, async (msg) => {
      const id = msg.data?.id;
      if (typeof id !== 'string' || id === '') {
        log.warn({ subject: msg.subject }, 'event without an id, ignored');
        return;
      }
      await handle(id);
    });
  const dropAssignments = async (column: 'service_id' | 'config_id', id: string) => {
    const removed = await serviceConfigs.removeNaming(column, id);
    if (removed > 0) log.info({ column, id, removed }, 'identity service configs removed with what they named');
  };
  return Promise.all([
    on(SERVICE_DELETED, (id) => dropAssignments('service_id', id)),
    on(CONFIG_DELETED, async (id) => {
      await dropAssignments('config_id', id);
      await routers.removeConfig(id);
    }),
  ]);
}

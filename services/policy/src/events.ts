/**
 * Subjects the policy service publishes, always after the write committed. Every change that
 * can alter which services an identity sees (services, configs, policies, posture checks) is
 * published, so sessions and caches can react. Consumers must be idempotent.
 */
import type { Bus } from '@edge/bus';

/** The entities whose changes are published, by their subject names. */
export type PolicyEntity =
  | 'config-type' | 'config' | 'service' | 'service-policy' | 'edge-router-policy'
  | 'service-edge-router-policy' | 'posture-check';

export type ChangeKind = 'created' | 'updated' | 'deleted';

/** `edge.policy.<entity>.<event>`. */
export function subject(entity: PolicyEntity, kind: ChangeKind): string {
  return `edge.policy.${entity}.${kind}`;
}

/** What a change event carries: the entity's id and name, and what else it touched. */
export interface PolicyChangeEvent {
  id: string;
  name: string;
  /** Services whose configs changed with this write (config updates and deletes). */
  serviceIds?: string[];
}

/**
 * Publishes policy changes; `changed` runs first, so this process's caches forget the old state
 * before anyone hears of the new one.
 */
export function createPolicyEvents(bus: Bus, changed: () => void = () => undefined) {
  return {
    publish: (entity: PolicyEntity, kind: ChangeKind, event: PolicyChangeEvent) => {
      changed();
      return bus.publish(subject(entity, kind), event);
    },
  };
}

export type PolicyEvents = ReturnType<typeof createPolicyEvents>;

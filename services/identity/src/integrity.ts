/**
 * The identity service's part of a data integrity check: identities' own service configs naming
 * services or configs the policy service no longer has. Fixing removes those assignments.
 */
import type { ServiceConfigStore } from './service-config-store.js';

/** Which of these service and config ids exist, as the policy service answers. */
export interface PolicyLookup {
  existingServices(ids: string[]): Promise<Set<string>>;
  existingConfigs(ids: string[]): Promise<Set<string>>;
}

/** Checks (and optionally repairs) dangling service config assignments. */
export function createIntegrityCheck(store: Pick<ServiceConfigStore, 'all' | 'remove'>, policy: PolicyLookup) {
  return async function check(fix: boolean): Promise<Array<{ description: string; fixed: boolean }>> {
    const all = await store.all();
    const [services, configs] = await Promise.all([
      policy.existingServices([...new Set(all.map((a) => a.serviceId))]),
      policy.existingConfigs([...new Set(all.map((a) => a.configId))]),
    ]);
    const issues = [];
    for (const a of all.filter((x) => !services.has(x.serviceId) || !configs.has(x.configId))) {
      if (fix) await store.remove(a.identityId, [a]);
      const what = services.has(a.serviceId) ? `config ${a.configId}` : `service ${a.serviceId}`;
      issues.push({ description: `identity: service config of identity ${a.identityId} names ${what}, which does not exist`, fixed: fix });
    }
    return issues;
  };
}

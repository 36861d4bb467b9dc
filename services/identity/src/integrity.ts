/**
 * The identity service's part of a data integrity check: identities' own service configs naming
 * services or configs the policy service no longer has, and routers holding configs it no longer
 * has. Fixing removes those assignments.
 */
import type { RouterStore } from './router-store.js';
import type { ServiceConfigStore } from './service-config-store.js';

/** Which of these service and config ids exist, as the policy service answers. */
export interface PolicyLookup {
  existingServices(ids: string[]): Promise<Set<string>>;
  existingConfigs(ids: string[]): Promise<Set<string>>;
}

type Issue = { description: string; fixed: boolean };

/** Checks (and optionally repairs) dangling service config assignments and router configs. */
export function createIntegrityCheck(
  store: Pick<ServiceConfigStore, 'all' | 'remove'>, routers: Pick<RouterStore, 'withConfigs' | 'removeConfig'>, policy: PolicyLookup,
) {
  const assignments = async (fix: boolean): Promise<Issue[]> => {
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

  const routerConfigs = async (fix: boolean): Promise<Issue[]> => {
    const held = await routers.withConfigs();
    const existing = await policy.existingConfigs([...new Set(held.flatMap((r) => r.configs))]);
    const issues = [];
    for (const r of held) {
      for (const configId of r.configs.filter((id) => !existing.has(id))) {
        issues.push({ description: `identity: ${r.kind} router ${r.id} holds config ${configId}, which does not exist`, fixed: fix });
      }
    }
    if (fix) for (const gone of new Set(held.flatMap((r) => r.configs).filter((id) => !existing.has(id)))) await routers.removeConfig(gone);
    return issues;
  };

  return async function check(fix: boolean): Promise<Issue[]> {
    return [...(await assignments(fix)), ...(await routerConfigs(fix))];
  };
}

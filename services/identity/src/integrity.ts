/**
 * The identity service's part of a data integrity check: identities' own service configs naming
 * services or configs the policy service no longer has, and routers holding configs it no longer
 * has. This service lists what it refers to and removes what the caller found gone; it never asks
 * the policy service itself (which asks this service to match identities and routers), so the two
 * have no call cycle. The session service runs the check, and its periodic repair.
 */
import type { RouterStore } from './store/router.js';
import type { ServiceConfigStore } from './store/service-config.js';

type Issue = { description: string; fixed: boolean };

/** The references to services and configs, and their removal. */
export function createConfigReferences(store: Pick<ServiceConfigStore, 'all' | 'remove'>, routers: Pick<RouterStore, 'withConfigs' | 'removeConfig'>) {
  return {
    /** Every service and config id referred to, each once. */
    async list(): Promise<{ serviceIds: string[]; configIds: string[] }> {
      const [all, held] = await Promise.all([store.all(), routers.withConfigs()]);
      return {
        serviceIds: [...new Set(all.map((a) => a.serviceId))],
        configIds: [...new Set([...all.map((a) => a.configId), ...held.flatMap((r) => r.configs)])],
      };
    },

    /** Reports (and with `fix` removes) the references to the services and configs named missing. */
    async removeMissing(missingServices: ReadonlySet<string>, missingConfigs: ReadonlySet<string>, fix: boolean): Promise<Issue[]> {
      const issues: Issue[] = [];
      for (const a of (await store.all()).filter((x) => missingServices.has(x.serviceId) || missingConfigs.has(x.configId))) {
        if (fix) await store.remove(a.identityId, [a]);
        const what = missingServices.has(a.serviceId) ? `service ${a.serviceId}` : `config ${a.configId}`;
        issues.push({ description: `identity: service config of identity ${a.identityId} names ${what}, which does not exist`, fixed: fix });
      }
      const held = await routers.withConfigs();
      for (const r of held) {
        for (const configId of r.configs.filter((id) => missingConfigs.has(id))) {
          issues.push({ description: `identity: ${r.kind} router ${r.id} holds config ${configId}, which does not exist`, fixed: fix });
        }
      }
      if (fix) for (const gone of new Set(held.flatMap((r) => r.configs).filter((id) => missingConfigs.has(id)))) await routers.removeConfig(gone);
      return issues;
    },
  };
}

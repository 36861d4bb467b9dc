/**
 * What identities' service configs and routers refer to of the policy service's services and
 * configs, checked across the two owners: the identity service lists its references, the policy
 * service says which exist, and the identity service reports (and on a fix removes) the rest.
 * The session service runs it, in data integrity runs and as a periodic repair of lost deletion
 * events, so neither owner calls the other (no identity ↔ policy cycle).
 */
import type { IdentityServiceClient } from '@edge/proto';
import type { RpcClient } from '@edge/rpc';
import type { IntegrityCheck } from './integrity.js';
import type { SessionPeers } from './peers/index.js';

/** The check over the identity client and the policy service's existence look-ups. */
export function createConfigReferenceCheck(
  identity: RpcClient<IdentityServiceClient>, policy: Pick<SessionPeers, 'existingServices' | 'existingConfigs'>,
): IntegrityCheck {
  return async (fix) => {
    const refs = await identity.listConfigReferences({});
    const [services, configs] = await Promise.all([policy.existingServices(refs.serviceIds), policy.existingConfigs(refs.configIds)]);
    const missingServiceIds = refs.serviceIds.filter((id) => !services.has(id));
    const missingConfigIds = refs.configIds.filter((id) => !configs.has(id));
    if (missingServiceIds.length === 0 && missingConfigIds.length === 0) return [];
    return (await identity.removeConfigReferences({ missingServiceIds, missingConfigIds, fix })).issues;
  };
}

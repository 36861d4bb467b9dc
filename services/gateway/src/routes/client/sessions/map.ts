/**
 * Sessions on the wire: `sessionDetail` (client) and `sessionManagementDetail` (management).
 */
import { entityRef } from '@edge/envelope';
import type { session } from '@edge/proto';
import { baseEntity, withFields, jsonObject } from '../../shared/entity.js';

/** `sessionEdgeRouter`: the router as a client sees it, with the URLs of its protocols. */
function renderSessionEdgeRouter(r: session.SessionEdgeRouter__Output) {
  return {
    name: r.name,
    appData: jsonObject(r.appDataJson),
    cost: r.cost,
    disabled: r.disabled,
    hostname: r.hostname,
    isOnline: r.isOnline,
    noTraversal: r.noTraversal,
    supportedProtocols: r.supportedProtocols,
    syncStatus: 'SYNC_UNKNOWN',
    urls: r.supportedProtocols,
  };
}

/** `sessionDetail`. */
export function renderSession(s: session.Session__Output) {
  return withFields(baseEntity(s, 'sessions'), {
    apiSession: entityRef('api-sessions', 'api-sessions', s.apiSessionId, s.apiSessionId),
    apiSessionId: s.apiSessionId,
    edgeRouters: s.edgeRouters.map(renderSessionEdgeRouter),
    identityId: s.identityId,
    service: entityRef('services', 'services', s.serviceId, s.serviceName),
    serviceId: s.serviceId,
    token: s.token,
    type: s.type,
  });
}

/**
 * `sessionManagementDetail`: with the policies whose posture checks let it through, by name; a
 * policy deleted since is left out (as MapSessionToRestModel in controller/internal/routes).
 */
export function renderManagementSession(s: session.Session__Output, policyNames: ReadonlyMap<string, string>) {
  const known = s.servicePolicyIds.filter((id) => policyNames.has(id));
  return withFields(renderSession(s), { servicePolicies: known.map((id) => entityRef('service-policies', 'service-policies', id, policyNames.get(id)!)) });
}

/**
 * Client `/services`: the services the caller may dial or bind. The policy service evaluates its
 * policies for the caller's role attributes; the configs of the types the API session asked for
 * at login and of the `configTypes` parameter come with each service (with the identity's own
 * configs, which the policy service reads from their owner); the role attributes come with the
 * caller's principal (the auth service's read model of identities), and the posture queries say whether
 * they pass for the caller's API session. `/services/{id}/terminators`: where
 * a visible service is hosted. An admin may also update, patch and delete a service here, as on
 * the management API.
 */
import { ok } from '@edge/envelope';
import type { policy } from '@edge/proto';
import type { Clients } from '../../../clients.js';
import type { Principal } from '../../../http/session-cache.js';
import { JSON_CONTENT_TYPE, jsonBytes, type Router } from '../../../http/route.js';
import { idParam } from '../../shared/entity.js';
import { listBody, listQuery } from '../../shared/list.js';
import { configTypesParam, renderClientService } from '../../management/services/map.js';
import { registerServiceWriteRoutes } from '../../management/services/routes.js';
import { renderClientTerminator } from '../../management/terminators/map.js';
import { renewsAt, unheardListChanges, type ListChanges } from '../../../http/list-changes.js';
import { createServicePageCache, type ServicePageCache } from './page-cache.js';
import { postureStates } from './posture.js';
import { policyCaller } from '../../shared/caller.js';

/** Who is asking, as the policy service evaluates it, with the config types to render. */
function caller(principal: Principal | undefined, configTypes: string[]) {
  const session = principal!.apiSession!;
  return { ...policyCaller(principal), configTypes: [...new Set([...session.configTypes, ...configTypes])] };
}

/** True when any of `services` has a granting policy that names posture checks. */
const namesPostureChecks = (services: readonly policy.Service__Output[]) => services.some((s) => s.postureQueries.some((g) => g.checks.length > 0));

export function registerClientServiceRoutes(
  route: Router, base: string, clients: Clients, changes: ListChanges = unheardListChanges(), pages: ServicePageCache = createServicePageCache(),
): void {
  const url = `${base}/services`;
  // Pages being confirmed in the background, by key.
  const confirming = new Set<string>();

  /**
   * Confirms a held page by the digest while it is still sent, so that a page in use is held
   * anew before its hold runs out and no request waits for the digest once per hold; a page of
   * another digest is dropped (the next request renders it).
   */
  const confirmAhead = (key: string, principal: Principal | undefined, generation: number) => {
    const hold = changes.holdFrom(generation);
    if (!hold || confirming.has(key)) return;
    confirming.add(key);
    clients.policy.getServiceListDigest(policyCaller(principal)).then((d) => {
      if (d.postureChecks.length === 0) pages.get(key, d.digest, hold);
    }).catch(() => undefined).finally(() => confirming.delete(key));
  };

  // A page already sent for the same caller and query is sent again while the digest of the
  // caller's list is unchanged (page-cache.ts); the digest is asked for first. A page held since
  // its last confirmation is sent without asking (and confirmed in the background near the end
  // of its hold). With no page kept, the page and the digest come in one call (the policy
  // service reads the digest first).
  route('GET', url, 'session', async (req, principal) => {
    const who = caller(principal, configTypesParam(req));
    const query = listQuery(req);
    const key = JSON.stringify([who, query]);
    const generation = changes.generation;
    const now = Date.now();
    const held = pages.held(key, generation, now);
    if (held) {
      if (renewsAt(pages.holdOf(key)!, changes.holdMs, now)) confirmAhead(key, principal, generation);
      return { body: held, contentType: JSON_CONTENT_TYPE };
    }
    const hold = changes.holdFrom(generation);
    let known: policy.ServiceListDigest__Output | undefined;
    if (pages.has(key)) {
      known = await clients.policy.getServiceListDigest(policyCaller(principal));
      const kept = known.postureChecks.length === 0 ? pages.get(key, known.digest, hold) : undefined;
      if (kept) return { body: kept, contentType: JSON_CONTENT_TYPE };
    }
    const page = await clients.policy.listServicesForIdentity({ ...who, query, withDigest: !known });
    // A policy service of the version before with_digest answers none: the page is then not kept.
    const digest = known ?? page.digest ?? undefined;
    const states = await postureStates(clients, principal!.apiSession!.id, page.services);
    const body = jsonBytes(listBody(page.services.map((s) => renderClientService(s, states)), page.meta));
    // Whether posture queries pass belongs to this API session: a page with any is never kept (the
    // page is checked too, as it may be newer than the digest read before it).
    if (digest && digest.postureChecks.length === 0 && !namesPostureChecks(page.services)) pages.put(key, digest.digest, body, hold);
    return { body, contentType: JSON_CONTENT_TYPE };
  });

  route('GET', `${url}/:id`, 'session', async (req, principal) => {
    const who = caller(principal, configTypesParam(req));
    const service = await clients.policy.getServiceForIdentity({ ...who, serviceId: idParam(req.params) });
    return { body: ok(renderClientService(service, await postureStates(clients, principal!.apiSession!.id, [service]))) };
  });

  // Only for a service the caller may see: any other is NOT_FOUND, as an unknown one.
  route('GET', `${url}/:id/terminators`, 'session', async (req, principal) => {
    const who = caller(principal, []);
    const service = await clients.policy.getServiceForIdentity({ ...who, serviceId: idParam(req.params) });
    const page = await clients.session.listTerminators({ query: listQuery(req), serviceId: service.id });
    return { body: listBody(page.terminators.map(renderClientTerminator), page.meta) };
  });

  registerServiceWriteRoutes(route, base, clients);
}

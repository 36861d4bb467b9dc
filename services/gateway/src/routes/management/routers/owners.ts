/**
 * The router writes that span owners. The identity service owns routers, the pki service their
 * enrollments and the policy service configs; the gateway asks each in turn, so the identity
 * service never calls the pki or policy service (both of which ask it about routers and
 * identities): no call cycles.
 */
import type { identity } from '@edge/proto';
import type { Clients } from '../../../clients.js';

type Kind = 'edge' | 'transit';

/** The configs a router is given must exist and be of a type routers take (as validateRouterConfigs). */
export async function checkRouterConfigs(clients: Clients, configIds: readonly string[]): Promise<void> {
  if (configIds.length > 0) await clients.policy.checkConfigs({ configIds: [...configIds], holder: 'router' });
}

/** Creates a router with its enrollment, or neither (as edge_router_manager.go); its id. */
export async function createRouterWithEnrollment(clients: Clients, kind: Kind, fields: identity.RouterFields): Promise<string> {
  await checkRouterConfigs(clients, fields.configs ?? []);
  const { id } = await clients.identity.createRouter({ kind, fields });
  try {
    await clients.pki.replaceRouterEnrollment({ kind, routerId: id });
  } catch (err) {
    // Its created event is already out: the deleted one follows it.
    await clients.identity.deleteRouter({ kind, id }).catch(() => undefined);
    throw err;
  }
  return id;
}

/** A new enrollment for the router, and its certificate dropped (the old one stops working). */
export async function reEnrollRouter(clients: Clients, kind: Kind, id: string): Promise<void> {
  await clients.identity.getRouter({ kind, id }); // NOT_FOUND before anything changes
  await clients.pki.replaceRouterEnrollment({ kind, routerId: id });
  await clients.identity.reEnrollRouter({ kind, id });
}

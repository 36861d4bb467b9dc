/**
 * What the clients of every owner share: page sizes, id filters, and the caller's principal.
 */
import { ALL_PAGES_LIMIT, currentContext, type CallerPrincipal } from '@edge/rpc';

export { everythingFrom as everything } from '@edge/rpc';

export const PAGE = ALL_PAGES_LIMIT;

/** A filter naming these ids. */
export const idIn = (ids: readonly string[]) => `id in [${ids.map((id) => JSON.stringify(id)).join(', ')}]`;

/** A role list and its semantic, as a policy holds them. */
export interface RoleSelection {
  roles: string[];
  semantic: string;
}

/**
 * The principal of the request being served, when it is the caller `matches` names: the gateway
 * sends it in the call metadata (libs/rpc principal.ts), so what it says of its own identity and
 * API session needs no call to the auth or identity service. Reconciliation runs without one.
 */
export function callerWhere(matches: (p: CallerPrincipal) => boolean): CallerPrincipal | undefined {
  const p = currentContext().principal;
  return p && matches(p) ? p : undefined;
}

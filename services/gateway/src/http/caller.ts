/**
 * The principal the gateway resolved, in the form it travels to the services in call metadata
 * (libs/rpc principal.ts): built once per cached principal, so a request served from the cache
 * sends the same bytes again.
 */
import type { CallerPrincipal } from '@edge/rpc';
import type { Principal } from './session-cache.js';

const built = new WeakMap<Principal, CallerPrincipal>();

/** The caller principal of an authenticated request; undefined without an API session. */
export function callerPrincipal(p: Principal | undefined): CallerPrincipal | undefined {
  const s = p?.apiSession;
  if (!p || !s) return undefined;
  let c = built.get(p);
  if (!c) {
    c = {
      identityId: s.identityId, name: s.identityName, isAdmin: p.isAdmin, apiSessionId: s.id,
      roleAttributes: p.roleAttributes ?? [], permissions: p.permissions ?? [], configTypes: s.configTypes ?? [],
      mfa: { required: s.isMfaRequired, complete: s.isMfaComplete, ...(p.mfaPassedAt ? { passedAt: p.mfaPassedAt } : {}) },
    };
    built.set(p, c);
  }
  return c;
}

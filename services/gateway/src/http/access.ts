/**
 * Who may call a route: nobody in particular, any fully authenticated session, a session still
 * completing MFA, or an admin — on the Management API also an identity whose permissions grant
 * the route (admin_readonly, the entity or the entity action; see permissions.ts). Also renders
 * the 401s of WIRE.md.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ZitiError, isZitiError } from '@edge/errors';
import { MANAGEMENT_BASE } from '../routes/root.js';
import { permits, routeRule } from './permissions.js';
import { noteRequest } from './request-facts.js';
import type { Principal, SessionCache } from './session-cache.js';

export type Access = 'public' | 'partial' | 'session' | 'admin';

/** Why a request is not authorized, as sent in WWW-Authenticate. */
type Reason = 'missing' | 'invalid' | 'expired' | 'forbidden' | 'mfa';

export class AuthRequired extends ZitiError {
  constructor(readonly reason: Reason) {
    super('UNAUTHORIZED');
  }
}

/** The session token of a request: the zt-session header (or an Authorization bearer token). */
export function sessionToken(req: FastifyRequest): string | undefined {
  const h = req.headers['zt-session'];
  if (typeof h === 'string' && h.trim()) return h.trim();
  const a = req.headers.authorization;
  if (typeof a === 'string' && a.toLowerCase().startsWith('bearer ')) return a.slice(7).trim() || undefined;
  return undefined;
}

/** The bearer JWT sent beside a zt-session header (a secondary factor); '' when there is none. */
function secondaryBearer(req: FastifyRequest): string {
  const a = req.headers.authorization;
  if (typeof req.headers['zt-session'] !== 'string' || typeof a !== 'string' || !a.toLowerCase().startsWith('bearer ')) return '';
  return a.slice(7).trim();
}

/** Resolves the caller and checks `access`; throws AuthRequired when refused. */
export async function authorize(req: FastifyRequest, access: Access, cache: SessionCache): Promise<Principal | undefined> {
  if (access === 'public') return undefined;
  const token = sessionToken(req);
  if (!token) throw new AuthRequired('missing');
  let principal: Principal;
  try {
    principal = await cache.resolve(token, secondaryBearer(req));
  } catch (e) {
    if (isZitiError(e) && e.code === 'UNAUTHORIZED') {
      throw new AuthRequired(e.args?.reason === 'expired' ? 'expired' : 'invalid');
    }
    throw e;
  }
  const s = principal.apiSession!;
  // Known from here on, so a refused request is logged with who made it.
  noteRequest(req, { identityId: s.identityId, apiSessionId: s.id });
  if (access !== 'partial' && ((s.isMfaRequired && !s.isMfaComplete) || principal.isExtJwtPending)) throw new AuthRequired('mfa');
  if (access === 'admin' && !mayAdminister(req, principal)) throw new AuthRequired('forbidden');
  return principal;
}

/**
 * An admin route: admins, and on the Management API whoever's permissions grant this route's
 * entity and action (the client API's few admin routes stay admin only, as OpenZiti's
 * DefaultManagementAccess requires the Management API).
 */
function mayAdminister(req: FastifyRequest, principal: Principal): boolean {
  if (principal.isAdmin) return true;
  const url = req.routeOptions.url ?? '';
  if (!url.startsWith(`${MANAGEMENT_BASE}/`)) return false;
  return permits({ isAdmin: false, permissions: principal.permissions }, routeRule(req.method, url.slice(MANAGEMENT_BASE.length)));
}

/** Adds the session expiry headers OpenZiti sends on authenticated responses. */
export function expiryHeaders(reply: FastifyReply, principal: Principal | undefined): void {
  const s = principal?.apiSession;
  if (!s?.expiresAt) return;
  const seconds = Math.max(0, Math.round((Date.parse(s.expiresAt) - Date.now()) / 1000));
  reply.header('expiration-seconds', String(seconds));
  reply.header('expires-at', s.expiresAt);
}

/** The WWW-Authenticate value for a refused request. */
export function wwwAuthenticate(reason: Reason): string {
  const error = reason === 'forbidden' || reason === 'mfa' ? 'invalid' : reason;
  return `zt-session realm="openziti" error="${error}"`;
}

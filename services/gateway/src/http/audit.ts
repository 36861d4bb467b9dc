/**
 * Audit events, logged with `audit: true` beside the access line: every login (success or
 * failure, with method, username or identity when known, source address and the error code),
 * every logout, and every change made through the Management API (who, which entity and id,
 * the outcome). Passwords, tokens and bodies are never part of them.
 */
import type { FastifyRequest } from 'fastify';
import { MANAGEMENT_BASE } from '../routes/root.js';
import type { RequestFacts } from './request-facts.js';

const LOGIN = /^\/edge\/(?:client|management)\/v1\/authenticate(\/mfa)?$/;
const LOGOUT = /^\/edge\/(?:client|management)\/v1\/current-api-session$/;
/** The `method` values logged by name; anything else is `other`. */
const LOGIN_METHODS = new Set(['password', 'cert', 'ext-jwt']);
const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const MAX_USERNAME = 100;

type Outcome = { result: 'success' | 'failure'; status: number; reason?: string };

function outcome(status: number, facts: RequestFacts): Outcome {
  return status < 400 ? { result: 'success', status } : { result: 'failure', status, reason: facts.errorCode };
}

/** The username a password login names (it is no secret; the password is never read here). */
function loginUsername(req: FastifyRequest): string | undefined {
  const name = (req.body as { username?: unknown } | undefined)?.username;
  return typeof name === 'string' ? name.slice(0, MAX_USERNAME) : undefined;
}

function loginMethod(req: FastifyRequest, secondFactor: boolean): string {
  if (secondFactor) return 'mfa';
  const m = (req.query as { method?: unknown }).method;
  return typeof m === 'string' && LOGIN_METHODS.has(m) ? m : 'other';
}

/** The entity family a management route changes (`identities`) and the id it names or made. */
function changedEntity(req: FastifyRequest, route: string, facts: RequestFacts): { entity: string; entityId?: string } {
  const entity = route.slice(MANAGEMENT_BASE.length + 1).split('/')[0]!;
  const id = (req.params as { id?: unknown } | undefined)?.id;
  return { entity, entityId: typeof id === 'string' ? id : facts.createdId };
}

/** Logs the audit event of an answered request, if it is a login, a logout or a management change. */
export function auditEvent(req: FastifyRequest, status: number, route: string, facts: RequestFacts): void {
  // Reads and other APIs' requests (most of them) have none: nothing is built for them.
  if (!CHANGES.has(req.method)) return;
  const who = { identityId: facts.identityId, apiSessionId: facts.apiSessionId, remoteAddress: req.ip };
  const o = outcome(status, facts);
  const login = req.method === 'POST' ? LOGIN.exec(route) : null;
  if (login) {
    const method = loginMethod(req, login[1] !== undefined);
    const username = method === 'password' ? loginUsername(req) : undefined;
    req.log.info({ audit: true, event: 'login', method, username, ...who, ...o }, o.result === 'success' ? 'login succeeded' : 'login failed');
  } else if (req.method === 'DELETE' && LOGOUT.test(route)) {
    req.log.info({ audit: true, event: 'logout', ...who, ...o }, 'logout');
  } else if (CHANGES.has(req.method) && route.startsWith(`${MANAGEMENT_BASE}/`)) {
    req.log.info({ audit: true, event: 'change', action: req.method, route, ...changedEntity(req, route, facts), ...who, ...o },
      o.result === 'success' ? 'change made' : 'change refused');
  }
}

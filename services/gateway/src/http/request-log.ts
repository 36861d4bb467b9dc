/**
 * The access log: one info line per answered request, with the request id the answer carries
 * in `x-request-id` (also on errors, 404s and 405s), and the audit events of logins, logouts
 * and management changes (audit.ts). Nothing secret is written: no headers, no bodies, and the
 * values of query parameters that carry tokens are replaced.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '@edge/logging';
import { auditEvent } from './audit.js';
import { requestFacts } from './request-facts.js';

export const REQUEST_ID_HEADER = 'x-request-id';
export const TRACE_ID_HEADER = 'x-trace-id';

/** Query parameters whose values are credentials (enrollment tokens, codes), never logged. */
const SECRET_QUERY = new Set(['token', 'jwt', 'password', 'secret', 'code']);
/** Longest path or query written, so a huge URL cannot flood the log. */
const MAX_LOGGED = 2048;
/** A caller's own request id is logged when it is this short and printable. */
const CALLER_ID = /^[\x21-\x7e]{1,128}$/;

/** The query string as sent, with the values of secret parameters replaced; undefined when empty. */
export function loggableQuery(url: string): string | undefined {
  const q = url.indexOf('?');
  if (q < 0 || q === url.length - 1) return undefined;
  const parts = url.slice(q + 1).split('&').map((part) => {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    let decoded = name;
    try {
      decoded = decodeURIComponent(name.replaceAll('+', ' '));
    } catch {
      // a name that does not decode is logged as sent
    }
    return SECRET_QUERY.has(decoded.toLowerCase()) ? `${name}=[redacted]` : part;
  });
  return parts.join('&').slice(0, MAX_LOGGED);
}

/**
 * Our request id goes on every answer; a caller's own `x-request-id` is not taken over (two
 * callers could send the same) but logged beside ours, so the two can be joined up.
 */
export function tagAnswer(req: FastifyRequest, reply: FastifyReply): void {
  reply.header(REQUEST_ID_HEADER, req.id);
}

function callerRequestId(req: FastifyRequest): string | undefined {
  const h = req.headers[REQUEST_ID_HEADER];
  return typeof h === 'string' && CALLER_ID.test(h) ? h : undefined;
}

/** Writes the access line of an answered request and, for logins and changes, its audit event. */
export function logAnswer(req: FastifyRequest, reply: FastifyReply, route: string): void {
  // Both are info lines: below that level there is nothing to build.
  if ((req.log as Partial<Pick<Logger, 'isLevelEnabled'>>).isLevelEnabled?.('info') === false) return;
  const url = req.originalUrl ?? req.url;
  const facts = requestFacts(req);
  req.log.info({
    method: req.method,
    route,
    path: url.split('?')[0]!.slice(0, MAX_LOGGED),
    query: loggableQuery(url),
    status: reply.statusCode,
    ms: Math.round(reply.elapsedTime * 10) / 10,
    identityId: facts.identityId,
    apiSessionId: facts.apiSessionId,
    remoteAddress: req.ip,
    callerRequestId: callerRequestId(req),
    traceId: facts.traceId,
  }, 'request');
  auditEvent(req, reply.statusCode, route, facts);
}

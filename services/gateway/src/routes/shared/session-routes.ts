/**
 * Authentication and the caller's own session and identity, served identically on both APIs.
 */
import type { FastifyRequest } from 'fastify';
import { ZitiError } from '@edge/errors';
import { empty, ok } from '@edge/envelope';
import { envInfo, parseBody, sdkInfo, z } from '@edge/schemas';
import type { Clients } from '../../clients.js';
import { sessionToken } from '../../http/access.js';
import { clientCertError, clientCertPem } from '../../http/client-cert.js';
import { noteRequest } from '../../http/request-facts.js';
import type { Router } from '../../http/route.js';
import type { IdentitySource } from '../../http/identity-cache.js';
import type { SessionCache } from '../../http/session-cache.js';
import { configTypeIds } from '../management/config-types/ids.js';
import { renderApiSession, renderIdentity } from './render.js';

const METHODS = new Set(['password', 'cert', 'ext-jwt']);

/** `authenticate` body (A1 of the specs). */
const authenticateBody = z.object({
  username: z.string().min(4).max(100).optional(),
  password: z.string().min(5).max(100).optional(),
  configTypes: z.array(z.string().max(255)).max(100).optional(),
  envInfo: envInfo.optional(),
  sdkInfo: sdkInfo.optional(),
});

/** The token of an `Authorization: Bearer <jwt>` header, as method ext-jwt sends it. */
function bearerToken(req: FastifyRequest): string {
  const h = req.headers.authorization;
  return typeof h === 'string' && /^bearer /i.test(h) ? h.slice(7).trim() : '';
}

/** Registers authenticate, current-api-session and current-identity under `base`. */
export function registerSessionRoutes(
  route: Router, base: string, clients: Clients, cache: SessionCache, identities: IdentitySource,
  loginConfigTypes: (values: readonly string[]) => Promise<string[]> = (values) => configTypeIds(clients, values),
): void {
  route('POST', `${base}/authenticate`, 'public', async (req) => {
    const method = (req.query as Record<string, unknown>).method;
    if (typeof method !== 'string' || !METHODS.has(method)) {
      throw new ZitiError('INVALID_AUTH_METHOD', { causeMessage: `method must be one of ${[...METHODS].join(', ')}` });
    }
    const body = parseBody(authenticateBody, req.body ?? {});
    const session = await clients.auth.authenticate({
      method,
      username: body.username ?? '',
      password: body.password ?? '',
      configTypes: await loginConfigTypes(body.configTypes ?? []),
      envInfo: body.envInfo,
      sdkInfo: body.sdkInfo,
      clientCertPem: clientCertPem(req),
      clientCertError: clientCertError(req),
      remoteAddress: req.ip,
      bearerToken: bearerToken(req),
    });
    noteRequest(req, { identityId: session.identityId, apiSessionId: session.id });
    return { body: ok(renderApiSession(session, session.token)), headers: { 'zt-session': session.token } };
  }, { body: authenticateBody });

  route('GET', `${base}/current-api-session`, 'partial', async (req, principal) => {
    const session = await clients.auth.getApiSession({ id: principal!.apiSession!.id });
    // A pending secondary external JWT is judged per request; its query comes with the principal.
    const pending = principal!.isExtJwtPending ? principal!.apiSession!.authQueries.filter((q) => q.typeId === 'EXT-JWT') : [];
    return { body: ok(renderApiSession({ ...session, authQueries: [...session.authQueries, ...pending] }, sessionToken(req)!)) };
  });

  route('DELETE', `${base}/current-api-session`, 'partial', async (req, principal) => {
    await clients.auth.deleteApiSession({ id: principal!.apiSession!.id });
    cache.forget(sessionToken(req)!);
    return { body: empty() };
  });

  // The identity comes from the gateway's cache of callers' identities (dropped by their events);
  // the authenticators and MFA state with the principal (the auth service announces their
  // changes); a principal from an auth service that does not send them is answered by asking it.
  route('GET', `${base}/current-identity`, 'session', async (_req, principal) => {
    const id = principal!.apiSession!.identityId;
    const [identity, summary] = await Promise.all([
      identities.get(id),
      principal!.authSummary ?? clients.auth.getIdentityAuthSummaries({ identityIds: [id] }).then((r) => r.summaries[0]),
    ]);
    return { body: ok(renderIdentity(identity, summary)) };
  });
}

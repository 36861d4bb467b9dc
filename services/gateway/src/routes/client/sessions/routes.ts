/**
 * Client `/sessions`: the caller creates Dial/Bind sessions for its API session; it lists, reads
 * and deletes its own (an admin: everyone's, as OpenZiti's PublicQueryForIdentity).
 */
import { empty, ok } from '@edge/envelope';
import type { session } from '@edge/proto';
import { contextOfMany, createBatcher, currentContext, decodeZitiError, encodePrincipal, orOneByOne, runWithContext, type RequestContext } from '@edge/rpc';
import { parseBody } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Principal } from '../../../http/session-cache.js';
import type { Router } from '../../../http/route.js';
import { idParam } from '../../shared/entity.js';
import { listBody, listQuery } from '../../shared/list.js';
import { renderSession } from './map.js';
import { sessionCreate } from './schemas.js';

/** One session creation and the context of the request asking for it. */
interface Creation {
  request: session.CreateSessionRequest;
  ctx: RequestContext;
}

const NO_PRINCIPAL = Buffer.alloc(0);

/**
 * One item's answer: the session, or the error the session service gave for it (raised as a
 * single CreateSession would raise it: same code, status and cause); an error it could not
 * explain is an unexpected one (500).
 */
function resultOf(r: session.CreateSessionResult__Output): session.Session__Output | Error {
  if (r.result === 'session' && r.session) return r.session;
  return (r.error && decodeZitiError(r.error)) || new Error('the session service could not create a session');
}

/** Whose sessions the caller sees: its own, or every one for an admin ('' = no restriction). */
const scope = (principal: Principal | undefined) => (principal!.isAdmin ? '' : principal!.apiSession!.identityId);

/** Batches of session creations sent to the session service and not yet answered, at most. */
const CREATIONS_IN_FLIGHT = 4;

/** Registers the client session routes. */
export function registerClientSessionRoutes(route: Router, base: string, clients: Clients): void {
  const url = `${base}/sessions`;

  // Creations arriving together (SDKs dialing many services at once) share one call; each
  // carries the principal and request id of its own request. A session service of the version
  // before CreateSessions (a rolling upgrade) is asked one CreateSession per request instead.
  // Four calls may be out at once: a call waits on the policy service and on a write in turn,
  // and with two, nearly every batch waited for one of them to settle.
  const create = createBatcher<Creation, session.Session__Output>(orOneByOne(async (creations) => {
    const { results } = await runWithContext(contextOfMany(creations.map((c) => c.ctx)), () => clients.session.createSessions({
      items: creations.map(({ request, ctx }) => ({ request, principal: ctx.principal ? encodePrincipal(ctx.principal) : NO_PRINCIPAL, requestId: ctx.requestId })),
    }));
    return results.map(resultOf);
  }, ({ request, ctx }) => runWithContext(ctx, () => clients.session.createSession(request))), { maxInFlight: CREATIONS_IN_FLIGHT });

  route('POST', url, 'session', async (req, principal) => {
    const body = parseBody(sessionCreate, req.body);
    const s = await create({
      request: {
        apiSessionId: principal!.apiSession!.id, identityId: principal!.apiSession!.identityId,
        serviceId: body.serviceId, type: body.type ?? 'Dial', tagsJson: JSON.stringify(body.tags ?? {}),
      },
      ctx: currentContext(),
    });
    return { status: 201, body: ok(renderSession(s)) };
  }, { body: sessionCreate, status: 201 });

  route('GET', url, 'session', async (req, principal) => {
    const page = await clients.session.listSessions({ query: listQuery(req), identityId: scope(principal) });
    return { body: listBody(page.sessions.map(renderSession), page.meta) };
  });

  route('GET', `${url}/:id`, 'session', async (req, principal) => {
    return { body: ok(renderSession(await clients.session.getSession({ id: idParam(req.params), identityId: scope(principal) }))) };
  });

  route('DELETE', `${url}/:id`, 'session', async (req, principal) => {
    await clients.session.deleteSession({ id: idParam(req.params), identityId: scope(principal) });
    return { body: empty() };
  });
}

/**
 * MFA of the caller's own identity and completing a partial API session, served identically on
 * both APIs (as controller/internal/routes/current_identity_router.go registers them).
 * OpenZiti lets a partial session read, start and verify an enrollment; removing it and
 * recovery codes need a fully authenticated session.
 */
import type { FastifyRequest } from 'fastify';
import { empty, ok } from '@edge/envelope';
import { parseBody, z } from '@edge/schemas';
import type { auth } from '@edge/proto';
import type { Clients } from '../../clients.js';
import { sessionToken } from '../../http/access.js';
import type { Router } from '../../http/route.js';
import type { Principal, SessionCache } from '../../http/session-cache.js';

/** `mfaCode`. */
const mfaCode = z.object({ code: z.string().max(100) });
const MFA_LINK = { self: { href: './current-identity/mfa' } };

/** The code of a request that may carry it in the `mfa-validation-code` header or the body. */
function headerOrBodyCode(req: FastifyRequest): string {
  const body = req.body as { code?: unknown } | undefined;
  if (body && typeof body === 'object' && typeof body.code === 'string') return body.code;
  const header = req.headers['mfa-validation-code'];
  return typeof header === 'string' ? header : '';
}

/** `detailMfa` (and the base of `detailMfaRecoveryCodes`). */
function renderMfa(m: auth.Mfa__Output) {
  const out: Record<string, unknown> = {
    id: m.id, createdAt: m.createdAt, updatedAt: m.updatedAt, _links: MFA_LINK, tags: JSON.parse(m.tagsJson || '{}'),
    isVerified: m.isVerified,
  };
  if (m.provisioningUrl) out.provisioningUrl = m.provisioningUrl;
  if (!m.isVerified) out.recoveryCodes = m.recoveryCodes;
  return out;
}

const apiSessionId = (p: Principal | undefined) => p!.apiSession!.id;

/** Registers the MFA routes under `base`. */
export function registerMfaRoutes(route: Router, base: string, clients: Clients, cache: SessionCache): void {
  const url = `${base}/current-identity/mfa`;

  route('POST', `${base}/authenticate/mfa`, 'partial', async (req, principal) => {
    const { code } = parseBody(mfaCode, req.body);
    await clients.auth.authenticateMfa({ apiSessionId: apiSessionId(principal), code });
    cache.forget(sessionToken(req)!); // this replica's next request sees the completed session
    return { body: empty() };
  }, { body: mfaCode });

  route('GET', url, 'partial', async (_req, principal) => {
    return { body: ok(renderMfa(await clients.auth.detailMfa({ apiSessionId: apiSessionId(principal) }))) };
  });

  route('POST', url, 'partial', async (_req, principal) => {
    const { id } = await clients.auth.enrollMfa({ apiSessionId: apiSessionId(principal) });
    return { status: 201, body: ok({ id, _links: MFA_LINK }) };
  }, { status: 201 });

  route('DELETE', url, 'session', async (req, principal) => {
    await clients.auth.deleteMfa({ apiSessionId: apiSessionId(principal), code: headerOrBodyCode(req) });
    cache.forgetIdentity(principal!.apiSession!.identityId);
    return { body: empty() };
  });

  route('GET', `${url}/qr-code`, 'partial', async (_req, principal) => {
    const { png } = await clients.auth.detailMfaQrCode({ apiSessionId: apiSessionId(principal) });
    return { body: png, contentType: 'image/png' };
  });

  route('POST', `${url}/verify`, 'partial', async (req, principal) => {
    const { code } = parseBody(mfaCode, req.body);
    await clients.auth.verifyMfa({ apiSessionId: apiSessionId(principal), code });
    // Every session of the identity now has MFA enabled (current-identity), this one passed it.
    cache.forgetIdentity(principal!.apiSession!.identityId);
    return { body: empty() };
  }, { body: mfaCode });

  route('GET', `${url}/recovery-codes`, 'session', async (req, principal) => {
    const m = await clients.auth.detailMfaRecoveryCodes({ apiSessionId: apiSessionId(principal), code: headerOrBodyCode(req) });
    const { id, createdAt, updatedAt, _links, tags } = renderMfa(m);
    return { body: ok({ id, createdAt, updatedAt, _links, tags, recoveryCodes: m.recoveryCodes }) };
  });

  route('POST', `${url}/recovery-codes`, 'session', async (req, principal) => {
    const { code } = parseBody(mfaCode, req.body);
    await clients.auth.createMfaRecoveryCodes({ apiSessionId: apiSessionId(principal), code });
    return { body: empty() };
  }, { body: mfaCode });

  route('POST', `${base}/current-api-session/totp-token`, 'session', async (req, principal) => {
    const { code } = parseBody(mfaCode, req.body);
    const t = await clients.auth.createTotpToken({ apiSessionId: apiSessionId(principal), code });
    return { body: ok({ token: t.token, issuedAt: t.issuedAt }) };
  }, { body: mfaCode });
}

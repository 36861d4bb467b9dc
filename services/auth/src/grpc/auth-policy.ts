/**
 * gRPC handlers of the AuthService's auth policy operations: proto → operation → proto.
 */
import { fieldError } from '@edge/errors';
import type { AuthServiceHandlers, auth } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import { listMeta, listParams, planList } from '@edge/zitiql';
import { AUTH_POLICY_FIELDS } from '../store/auth-policy.js';
import type { AuthPolicies } from '../auth-policies.js';
import type { AuthPolicy, AuthPolicyInput } from '../domain/auth-policy.js';

type AuthPolicyHandlers = Pick<AsyncHandlers<AuthServiceHandlers>,
  'CreateAuthPolicy' | 'GetAuthPolicy' | 'ListAuthPolicies' | 'UpdateAuthPolicy' | 'DeleteAuthPolicy'>;

function parseTags(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text || '{}');
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw fieldError('tags', 'must be a JSON object', text);
}

function toInput(f: auth.AuthPolicyFields__Output | null): AuthPolicyInput {
  const cert = f?.cert; const extJwt = f?.extJwt; const updb = f?.updb; const secondary = f?.secondary;
  return {
    name: f?.name ?? '',
    primary: {
      cert: { allowed: cert?.allowed ?? false, allowExpiredCerts: cert?.allowExpiredCerts ?? false },
      extJwt: { allowed: extJwt?.allowed ?? false, allowedSigners: extJwt?.allowedSigners ?? [] },
      updb: {
        allowed: updb?.allowed ?? false,
        minPasswordLength: updb?.minPasswordLength ?? 0,
        requireMixedCase: updb?.requireMixedCase ?? false,
        requireNumberChar: updb?.requireNumberChar ?? false,
        requireSpecialChar: updb?.requireSpecialChar ?? false,
        maxAttempts: updb?.maxAttempts ?? 0,
        lockoutDurationMinutes: updb?.lockoutDurationMinutes ?? 0,
      },
    },
    secondary: { requireTotp: secondary?.requireTotp ?? false, requireExtJwtSigner: secondary?.requireExtJwtSigner || null },
    tags: parseTags(f?.tagsJson ?? ''),
  };
}

function toProto(p: AuthPolicy): auth.AuthPolicy {
  return {
    id: p.id,
    fields: {
      name: p.name,
      cert: p.primary.cert,
      extJwt: p.primary.extJwt,
      updb: p.primary.updb,
      secondary: { requireTotp: p.secondary.requireTotp, requireExtJwtSigner: p.secondary.requireExtJwtSigner ?? undefined },
      tagsJson: JSON.stringify(p.tags),
    },
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

/** Creates the auth policy handlers. */
export function createAuthPolicyHandlers(policies: AuthPolicies): AuthPolicyHandlers {
  return {
    async CreateAuthPolicy(req) {
      return { id: await policies.create(toInput(req.fields)) };
    },
    async GetAuthPolicy(req) {
      return toProto(await policies.get(req.id));
    },
    async ListAuthPolicies(req) {
      const plan = planList(AUTH_POLICY_FIELDS, listParams(req.query));
      const page = await policies.list(plan);
      return { authPolicies: page.items.map(toProto), meta: listMeta(plan, page.total, AUTH_POLICY_FIELDS) };
    },
    async UpdateAuthPolicy(req) {
      await policies.update(req.id, toInput(req.fields));
      return {};
    },
    async DeleteAuthPolicy(req) {
      await policies.delete(req.id);
      return {};
    },
  };
}

/**
 * gRPC handlers of the AuthService's MFA operations: proto → operation → proto.
 */
import type { AuthServiceHandlers, auth } from '@edge/proto';
import type { AsyncHandlers } from '@edge/rpc';
import { toProtoApiSession } from './api-session.js';
import type { HandlerDeps } from './common.js';
import type { MfaView } from '../mfa.js';

type MfaHandlers = Pick<AsyncHandlers<AuthServiceHandlers>,
  'AuthenticateMfa' | 'EnrollMfa' | 'DetailMfa' | 'DetailMfaQrCode' | 'VerifyMfa' | 'DeleteMfa' |
  'DetailMfaRecoveryCodes' | 'CreateMfaRecoveryCodes' | 'CreateTotpToken' | 'RemoveIdentityMfa'>;

function toProtoMfa(v: MfaView): auth.Mfa {
  return {
    id: v.mfa.id,
    identityId: v.mfa.identityId,
    isVerified: v.mfa.isVerified,
    provisioningUrl: v.provisioningUrl ?? '',
    recoveryCodes: v.recoveryCodes ?? [],
    tagsJson: JSON.stringify(v.mfa.tags),
    createdAt: v.mfa.createdAt.toISOString(),
    updatedAt: v.mfa.updatedAt.toISOString(),
  };
}

/** Creates the MFA handlers. */
export function createMfaHandlers(deps: HandlerDeps): MfaHandlers {
  const { mfa, apiSessions, timeoutMinutes } = deps;
  return {
    async AuthenticateMfa(req) {
      await mfa.authenticate(req.apiSessionId, req.code);
      const { session, identity } = await apiSessions.get(req.apiSessionId);
      return toProtoApiSession(session, identity, timeoutMinutes);
    },
    async EnrollMfa(req) {
      return { id: await mfa.enroll(req.apiSessionId) };
    },
    async DetailMfa(req) {
      return toProtoMfa(await mfa.detail(req.apiSessionId));
    },
    async DetailMfaQrCode(req) {
      return { png: await mfa.qrCode(req.apiSessionId) };
    },
    async VerifyMfa(req) {
      await mfa.verify(req.apiSessionId, req.code);
      return {};
    },
    async DeleteMfa(req) {
      await mfa.remove(req.apiSessionId, req.code);
      return {};
    },
    async DetailMfaRecoveryCodes(req) {
      return toProtoMfa(await mfa.recoveryCodes(req.apiSessionId, req.code));
    },
    async CreateMfaRecoveryCodes(req) {
      await mfa.regenerateRecoveryCodes(req.apiSessionId, req.code);
      return {};
    },
    async CreateTotpToken(req) {
      const { token, issuedAt } = await mfa.totpToken(req.apiSessionId, req.code);
      return { token, issuedAt: issuedAt.toISOString() };
    },
    async RemoveIdentityMfa(req) {
      await mfa.removeForIdentity(req.identityId);
      return {};
    },
  };
}

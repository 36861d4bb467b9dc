/**
 * MFA operations of an API session's identity: enroll, verify, show, remove, recovery codes,
 * completing a partial API session, TOTP tokens; and the admin removal. Behaviour as
 * controller/internal/routes/current_identity_router.go and authenticate_router.go, plus what
 * OpenZiti lacks: no code works twice, recovery codes are stored hashed, and wrong codes are
 * limited per API session.
 */
import { ZitiError, notFound } from '@edge/errors';
import { newId, newToken } from '@edge/ids';
import { decryptKey, encryptKey } from '@edge/key-encryption';
import QRCode from 'qrcode';
import { hashToken, type ApiSession } from './domain/api-session.js';
import {
  MAX_MFA_ATTEMPTS, hashRecoveryCode, isRecoveryCodeShape, newRecoveryCodes, recoveryCodeKey, totpLabels, type Mfa,
} from './domain/mfa.js';
import { matchTotp, newTotpSecret, provisioningUrl } from './domain/totp.js';
import type { ApiSessions } from './api-sessions.js';
import type { Identities, IdentityInfo } from './peers/identity.js';
import type { MfaStore } from './store/mfa.js';

/** What the MFA operations work with. */
export interface MfaDeps {
  mfaStore: MfaStore;
  apiSessions: ApiSessions;
  identities: Identities;
  /** The key-encryption key sealing secrets at rest. */
  kek: Buffer;
  /** host:port clients use; its host names the issuer in authenticator apps. */
  advertisedAddress: string;
}

/** An enrollment as shown to its owner; secrets only where the specs show them. */
export interface MfaView {
  mfa: Mfa;
  provisioningUrl?: string;
  recoveryCodes?: string[];
}

const QR_SIZE = 256;
const invalidToken = () => new ZitiError('MFA_INVALID_TOKEN');

/** Creates the MFA operations. */
export function createMfaOperations(deps: MfaDeps) {
  const { mfaStore, apiSessions, identities, kek } = deps;
  const codeKey = recoveryCodeKey(kek);
  // Sealed values are bound to their enrollment: a ciphertext moved to another row fails.
  const seal = (mfaId: string, kind: string, value: string) => encryptKey(value, kek, `mfa-${kind}:${mfaId}`);
  const open = (mfa: Mfa, kind: string, sealed: string) => decryptKey(sealed, kek, `mfa-${kind}:${mfa.id}`);
  const secretOf = (mfa: Mfa) => open(mfa, 'secret', mfa.secretSealed);

  async function caller(apiSessionId: string): Promise<{ session: ApiSession; identity: IdentityInfo }> {
    const { session, identity } = await apiSessions.get(apiSessionId);
    if (!identity) throw new ZitiError('UNAUTHORIZED', { args: { reason: 'invalid' } });
    return { session, identity };
  }

  /** The caller's enrollment in the wanted state, else NOT_FOUND (as OpenZiti answers). */
  async function enrollment(identityId: string, verified?: boolean): Promise<Mfa> {
    const mfa = await mfaStore.findByIdentity(identityId);
    if (!mfa || (verified !== undefined && mfa.isVerified !== verified)) throw notFound('mfa', identityId);
    return mfa;
  }

  function sealedCodes(mfaId: string): { sealed: string; hashes: string[] } {
    const codes = newRecoveryCodes();
    return { sealed: seal(mfaId, 'recovery', JSON.stringify(codes)), hashes: codes.map((c) => hashRecoveryCode(codeKey, mfaId, c)) };
  }

  /** The recovery codes not used yet, in their original order. */
  async function remainingCodes(mfa: Mfa): Promise<string[]> {
    const left = await mfaStore.recoveryCodeHashes(mfa.id);
    const all = JSON.parse(open(mfa, 'recovery', mfa.recoveryCodesSealed)) as string[];
    return all.filter((c) => left.has(hashRecoveryCode(codeKey, mfa.id, c)));
  }

  /** True when `code` is a TOTP of a step not used before (the step is then used up). */
  async function totpMatches(mfa: Mfa, code: string): Promise<boolean> {
    const step = await matchTotp(secretOf(mfa), code, mfa.lastTotpStep);
    return step !== undefined && (await mfaStore.recordTotpStep(mfa.id, step));
  }

  async function codeMatches(mfa: Mfa, code: string, allowRecovery: boolean): Promise<boolean> {
    if (await totpMatches(mfa, code)) return true;
    if (!allowRecovery || !isRecoveryCodeShape(code)) return false;
    return mfaStore.consumeRecoveryCode(mfa.id, hashRecoveryCode(codeKey, mfa.id, code));
  }

  /**
   * Accepts a right code; a wrong one is MFA_INVALID_TOKEN and counts against the API session,
   * which ends (UNAUTHORIZED) at the limit, so codes cannot be guessed on one session.
   */
  async function prove(session: ApiSession, mfa: Mfa, code: string, allowRecovery: boolean): Promise<void> {
    if (code !== '' && (await codeMatches(mfa, code.trim(), allowRecovery))) return;
    if ((await mfaStore.countMfaFailure(session.id)) >= MAX_MFA_ATTEMPTS) {
      await apiSessions.end(session.id);
      throw new ZitiError('UNAUTHORIZED', { causeMessage: 'too many invalid MFA codes; the API session has ended', args: { reason: 'invalid' } });
    }
    throw invalidToken();
  }

  async function completeSession(session: ApiSession): Promise<void> {
    await mfaStore.completeApiSessionMfa({ id: session.id, identityId: session.identityId });
  }

  async function removeAll(identityId: string): Promise<void> {
    await mfaStore.deleteForIdentity(identityId);
  }

  return {
    /** POST /authenticate/mfa: a TOTP or recovery code completes the API session's MFA. */
    async authenticate(apiSessionId: string, code: string): Promise<void> {
      const { session } = await caller(apiSessionId);
      const mfa = await mfaStore.findByIdentity(session.identityId);
      if (!mfa?.isVerified) throw new ZitiError('MFA_NOT_ENROLLED');
      await prove(session, mfa, code, true);
      await completeSession(session);
    },

    /** POST /current-identity/mfa: starts an enrollment; MFA_EXISTS when there is one. */
    async enroll(apiSessionId: string): Promise<string> {
      const { identity } = await caller(apiSessionId);
      if (await mfaStore.findByIdentity(identity.id)) throw new ZitiError('MFA_EXISTS');
      const id = newId();
      const { sealed, hashes } = sealedCodes(id);
      const inserted = await mfaStore.insert({
        id, identityId: identity.id, secretSealed: seal(id, 'secret', newTotpSecret()), recoveryCodesSealed: sealed, recoveryCodeHashes: hashes,
      });
      if (!inserted) throw new ZitiError('MFA_EXISTS');
      return id;
    },

    /** GET /current-identity/mfa: provisioning URL and recovery codes only while unverified. */
    async detail(apiSessionId: string): Promise<MfaView> {
      const { identity } = await caller(apiSessionId);
      const mfa = await enrollment(identity.id);
      if (mfa.isVerified) return { mfa };
      const { issuer, label } = totpLabels(identity.name, deps.advertisedAddress);
      return { mfa, provisioningUrl: provisioningUrl(secretOf(mfa), issuer, label), recoveryCodes: await remainingCodes(mfa) };
    },

    /** GET /current-identity/mfa/qr-code: a PNG of the provisioning URL, while unverified. */
    async qrCode(apiSessionId: string): Promise<Buffer> {
      const { identity } = await caller(apiSessionId);
      const mfa = await enrollment(identity.id, false);
      const { issuer, label } = totpLabels(identity.name, deps.advertisedAddress);
      return QRCode.toBuffer(provisioningUrl(secretOf(mfa), issuer, label), { type: 'png', width: QR_SIZE, errorCorrectionLevel: 'M' });
    },

    /** POST /current-identity/mfa/verify: a TOTP completes the enrollment and this session's MFA. */
    async verify(apiSessionId: string, code: string): Promise<void> {
      const { session } = await caller(apiSessionId);
      const mfa = await enrollment(session.identityId, false);
      await prove(session, mfa, code, false);
      await mfaStore.markVerified(mfa.id);
      await completeSession(session);
    },

    /** DELETE /current-identity/mfa: a verified enrollment needs a TOTP or recovery code. */
    async remove(apiSessionId: string, code: string): Promise<void> {
      const { session } = await caller(apiSessionId);
      const mfa = await enrollment(session.identityId);
      if (mfa.isVerified) await prove(session, mfa, code, true);
      await removeAll(session.identityId);
    },

    /** GET /current-identity/mfa/recovery-codes: the unused codes, after a TOTP. */
    async recoveryCodes(apiSessionId: string, code: string): Promise<MfaView> {
      const { session } = await caller(apiSessionId);
      const mfa = await enrollment(session.identityId, true);
      await prove(session, mfa, code, false);
      return { mfa, recoveryCodes: await remainingCodes(mfa) };
    },

    /** POST /current-identity/mfa/recovery-codes: replaces every recovery code. */
    async regenerateRecoveryCodes(apiSessionId: string, code: string): Promise<void> {
      const { session } = await caller(apiSessionId);
      const mfa = await enrollment(session.identityId, true);
      await prove(session, mfa, code, true);
      const { sealed, hashes } = sealedCodes(mfa.id);
      await mfaStore.replaceRecoveryCodes(mfa.id, sealed, hashes);
    },

    /** POST /current-api-session/totp-token: proof of a TOTP check now, for posture checks. */
    async totpToken(apiSessionId: string, code: string): Promise<{ token: string; issuedAt: Date }> {
      const { session } = await caller(apiSessionId);
      const mfa = await enrollment(session.identityId, true);
      await prove(session, mfa, code, false);
      const token = newToken();
      return { token, issuedAt: await mfaStore.insertTotpToken(hashToken(token), session.id) };
    },

    /** DELETE /identities/{id}/mfa: an admin removes any enrollment, no code needed. */
    async removeForIdentity(identityId: string): Promise<void> {
      if (!(await identities.find(identityId))) throw notFound('identity', identityId);
      await removeAll(identityId);
    },

    /** True when the identity has a verified enrollment (its logins then need MFA). */
    async isEnrolled(identityId: string): Promise<boolean> {
      return (await mfaStore.findByIdentity(identityId))?.isVerified ?? false;
    },
  };
}

/** The MFA operations. */
export type MfaOperations = ReturnType<typeof createMfaOperations>;

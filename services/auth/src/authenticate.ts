/**
 * Authentication: proving who the caller is and opening an API session for them, under the
 * identity's auth policy (allowed methods, lockout, required TOTP), by password, client
 * certificate or external JWT; see controller/internal/routes/authenticate_router.go and
 * controller/model/authenticator_mod_updb.go, authenticator_mod_cert.go, authenticator_mod_ext_jwt.go.
 */
import { ZitiError, isZitiError } from '@edge/errors';
import { processMetrics } from '@edge/metrics';
import { newId, newToken } from '@edge/ids';
import type { Logger } from '@edge/logging';
import type { AuthPolicies } from './auth-policies.js';
import { allowsMethod, requiresTotp, type AuthPolicy } from './domain/auth-policy.js';
import { hashToken, type ApiSession } from './domain/api-session.js';
import { createConcurrencyLimit, createSlidingWindowLimit } from './domain/rate-limit.js';
import { verifyPassword } from './domain/password.js';
import { certificateLoginAllowed, fingerprintOf, leafCertificate } from './domain/certificate.js';
import type { Identities, IdentityInfo } from './peers/identity.js';
import { identityClaim } from './domain/ext-jwt-signer.js';
import type { ExtJwtVerifier } from './ext-jwt.js';
import type { LockoutStore } from './store/lockout.js';
import type { Revocations } from './revocations.js';
import type { AuthStore } from './store/api-session.js';
import { envInfoOf, sdkInfoOf, type common } from '@edge/proto';

/** The JSON an API session's event carries of what the client reported; '' when it reported nothing. */
const reported = (info: object | null | undefined, fields: (v: unknown) => object) => (info ? JSON.stringify(fields(info)) : '');

/** What a client sends to `POST /authenticate`, as the gateway passes it on. */
export interface AuthenticateInput {
  method: string;
  username: string;
  password: string;
  /** What the client reported of its environment and SDK; null when it reported none. */
  envInfo: common.EnvInfo__Output | null;
  sdkInfo: common.SdkInfo__Output | null;
  configTypes: string[];
  remoteAddress: string;
  /** The JWT of method ext-jwt (the gateway takes it from the Authorization header). */
  bearerToken: string;
  /** The TLS client certificate the gateway saw (PEM), for `cert`. */
  clientCertPem: string;
  /** Why TLS did not verify it against the controller CA bundle; '' when it did. */
  clientCertError: string;
}

/** A new API session with its token (shown once, never stored) and identity. */
export interface Authenticated {
  session: ApiSession;
  token: string;
  identity: IdentityInfo;
  /** The identity has verified TOTP. */
  totpEnrolled: boolean;
}

/** What authentication works with. */
export interface AuthenticateDeps {
  store: AuthStore;
  identities: Identities;
  policies: AuthPolicies;
  lockouts: LockoutStore;
  /** Whether the identity has verified MFA, so its new API session must complete it. */
  isMfaEnrolled(identityId: string): Promise<boolean>;
  /** Bounds on authentication work in this process. */
  limits: { maxConcurrent: number; windowSeconds: number; perIp: number; perUsername: number };
  log: Logger;
  /** Verifies an external JWT against the signer its issuer names. */
  verifyExtJwt: ExtJwtVerifier;
  /** Revoked JWT ids and identities. */
  revocations: Pick<Revocations, 'isJtiRevoked' | 'isIdentityRevokedSince'>;
  /**
   * The verified, auth-enabled CA that issued a presented chain ('' when none) and the
   * externalId its claim reads from the leaf (the pki service owns CAs).
   */
  matchCertificateCa(certChainPem: string): Promise<{ caId: string; externalId: string }>;
}

/** Who a credential proved, with what, and under which policy. */
interface Proven {
  identity: IdentityInfo;
  authenticatorId: string;
  policy: AuthPolicy;
  /** A certificate the controller issued, which the client may extend. */
  isCertExtendable?: boolean;
  /** Whether the identity has verified TOTP, when proving it read that already. */
  totpEnrolled?: boolean;
}

const invalidAuth = () => new ZitiError('INVALID_AUTH');
const tooMany = (what: string, scope: string) => {
  processMetrics().rateLimited(scope);
  return new ZitiError('SERVER_TOO_MANY_REQUESTS', { causeMessage: `too many authentication requests ${what}` });
};

/** Creates the authenticate operation. */
export function createAuthenticate(deps: AuthenticateDeps) {
  const { store, identities, policies, lockouts, limits, log } = deps;
  const concurrent = createConcurrencyLimit(limits.maxConcurrent);
  const failuresPerIp = createSlidingWindowLimit(limits.perIp, limits.windowSeconds * 1000);
  const failuresPerUsername = createSlidingWindowLimit(limits.perUsername, limits.windowSeconds * 1000);

  /**
   * Runs one authentication within the limits: a free slot among the concurrent ones, or
   * SERVER_TOO_MANY_REQUESTS at once (the caller retries later; nothing queues up behind a
   * flood). Only failures count against the source IP and the username over the window; past
   * either limit a failure is answered 429 instead of 401. A correct credential is neither
   * counted nor refused by them, so a CI job, a console or tunnelers behind one NAT that log
   * in correctly are never throttled; guessing at one account is bounded by its auth policy's
   * lockout.
   */
  async function limited<T>(input: AuthenticateInput, fn: () => Promise<T>): Promise<T> {
    const release = concurrent.tryAcquire();
    if (!release) throw tooMany('in progress', 'concurrency');
    try {
      return await fn();
    } catch (err) {
      if (isZitiError(err) && err.code === 'INVALID_AUTH') throw countFailure(input) ?? err;
      throw err;
    } finally {
      release();
    }
  }

  /** Counts a failed attempt; the 429 to answer instead when a window is past its limit. */
  function countFailure(input: AuthenticateInput): ZitiError | undefined {
    const ipOver = input.remoteAddress !== '' && !failuresPerIp.hit(input.remoteAddress);
    const usernameOver = input.method === 'password' && input.username !== '' && !failuresPerUsername.hit(input.username.toLowerCase());
    if (ipOver) return tooMany('from this address', 'address');
    if (usernameOver) return tooMany('for this username', 'username');
    return undefined;
  }

  /**
   * Counts a wrong password; the one reaching the policy's maxAttempts locks the authenticator
   * (in the same statement) and disables the identity for the lockout duration, which is what
   * administrators see. The count lives in Postgres, so failures sent to different replicas add
   * up.
   */
  async function recordFailure(authenticatorId: string, identity: IdentityInfo, policy: AuthPolicy): Promise<void> {
    const rule = policy.primary.updb;
    if (!(await lockouts.recordFailure(authenticatorId, rule))) return;
    await identities.disable(identity.id, rule.lockoutDurationMinutes);
    log.info({ identityId: identity.id, lockoutMinutes: rule.lockoutDurationMinutes }, 'identity locked after consecutive failed logins');
  }

  /** The identity whose updb credentials these are, and its policy; INVALID_AUTH for any failure alike. */
  async function passwordIdentity(input: AuthenticateInput): Promise<Proven> {
    // OpenZiti answers missing credentials with INVALID_AUTH (401), not a validation error.
    if (input.username === '' || input.password === '') throw invalidAuth();
    const authenticator = await store.findUpdbByUsername(input.username);
    // Verified even when the username is unknown, so timing does not tell which names exist.
    const ok = await verifyPassword(input.password, authenticator?.passwordHash);
    // Read once the password is checked, in one statement: its lockout (a lockout that failures
    // racing this login imposed meanwhile is seen even before the identity service has disabled
    // the identity), the identity, its policy and its TOTP.
    const checked = authenticator && await lockouts.checkedPassword(authenticator.id);
    if (!authenticator || !checked) throw invalidAuth();
    const identity = await identities.findFrom(authenticator.identityId, checked.identity);
    if (!identity || identity.disabled) throw invalidAuth();
    const policy = checked.policy ?? await policies.forIdentity(identity.authPolicyId);
    if (!allowsMethod(policy, 'password')) throw invalidAuth();
    if (!ok) {
      await recordFailure(authenticator.id, identity, policy);
      throw invalidAuth();
    }
    if (!(await lockouts.admit(authenticator.id, checked))) throw invalidAuth();
    return { identity, authenticatorId: authenticator.id, policy, totpEnrolled: checked.totpEnrolled };
  }

  /**
   * The identity an external JWT names through its signer's claim (an id, or an externalId when
   * the signer says so), under a policy that allows ext-jwt and, if it lists signers, this one.
   */
  async function extJwtIdentity(input: AuthenticateInput): Promise<Proven> {
    if (input.bearerToken === '') throw invalidAuth();
    const { signer, payload } = await deps.verifyExtJwt(input.bearerToken);
    const claim = identityClaim(signer, payload);
    if (!claim || (await deps.revocations.isJtiRevoked(payload.jti))) throw invalidAuth();
    const identity = signer.useExternalId ? await identities.findByExternalId(claim) : await identities.find(claim);
    if (!identity || identity.disabled) throw invalidAuth();
    const issuedAt = payload.iat === undefined ? undefined : new Date(payload.iat * 1000);
    if (await deps.revocations.isIdentityRevokedSince(identity.id, issuedAt)) throw invalidAuth();
    const policy = await policies.forIdentity(identity.authPolicyId);
    const signers = policy.primary.extJwt.allowedSigners;
    if (!allowsMethod(policy, 'ext-jwt') || (signers.length > 0 && !signers.includes(signer.id))) throw invalidAuth();
    return { identity, authenticatorId: signer.id, policy };
  }

  /**
   * The identity whose cert authenticator has the presented certificate's fingerprint. TLS has
   * proven possession of its key in the handshake and verified the chain against the controller
   * CA bundle (or says why not); the auth policy decides about expired certificates.
   */
  async function certIdentity(input: AuthenticateInput): Promise<Proven> {
    if (input.clientCertPem === '') throw invalidAuth();
    let cert;
    try {
      cert = leafCertificate(input.clientCertPem);
    } catch {
      throw invalidAuth();
    }
    const authenticator = await store.findCertByFingerprint(fingerprintOf(cert));
    const { identity, authenticatorId } = authenticator
      ? { identity: await identities.find(authenticator.identityId), authenticatorId: authenticator.id }
      : await caClaimIdentity(input.clientCertPem);
    if (!identity || identity.disabled) throw invalidAuth();
    const policy = await policies.forIdentity(identity.authPolicyId);
    if (!certificateLoginAllowed({ pem: input.clientCertPem, tlsError: input.clientCertError }, cert, policy)) throw invalidAuth();
    // as authenticate_router.go: the session may extend the certificate when the controller issued it
    return { identity, authenticatorId, policy, isCertExtendable: authenticator?.isIssuedByNetwork ?? false };
  }

  /**
   * A certificate no authenticator knows: the identity whose externalId the issuing CA's claim
   * reads from it, when a verified auth-enabled CA issued it (authenticator_mod_cert.go).
   */
  async function caClaimIdentity(chainPem: string): Promise<{ identity: IdentityInfo | undefined; authenticatorId: string }> {
    const { caId, externalId } = await deps.matchCertificateCa(chainPem);
    if (caId === '' || externalId === '') throw invalidAuth();
    return { identity: await identities.findByExternalId(externalId), authenticatorId: caId };
  }

  /** Authenticates and opens an API session. */
  return async function authenticate(input: AuthenticateInput): Promise<Authenticated> {
    const prove = { password: passwordIdentity, cert: certIdentity, 'ext-jwt': extJwtIdentity }[input.method];
    if (!prove) throw new ZitiError('INVALID_AUTH_METHOD');
    const proven = await limited(input, () => prove(input));
    const { identity, authenticatorId, policy, isCertExtendable = false } = proven;
    const token = newToken();
    // as authenticate_router.go: verified MFA, or a policy requiring TOTP (the identity must then
    // enroll first), makes the new session partial until MFA is completed
    const totpEnrolled = proven.totpEnrolled ?? await deps.isMfaEnrolled(identity.id);
    const isMfaRequired = requiresTotp(policy) || totpEnrolled;
    const session = await store.insertApiSession({
      id: newId(), tokenHash: hashToken(token), identityId: identity.id, authenticatorId,
      configTypes: input.configTypes, ipAddress: input.remoteAddress,
      isMfaRequired, isMfaComplete: false, isCertExtendable, lastActivityAt: new Date(),
    }, { envInfoJson: reported(input.envInfo, envInfoOf), sdkInfoJson: reported(input.sdkInfo, sdkInfoOf) });
    return { session, token, identity, totpEnrolled };
  };
}

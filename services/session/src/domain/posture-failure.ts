/**
 * What a failed posture check reports (`postureCheckFailure<Type>` of the specs): the value the
 * endpoint reported (`actualValue`) and what the check wanted (`expectedValue`), as OpenZiti's
 * FailureValues of each check type (controller/model/posture_check_model_*.go) and their
 * rendering (controller/internal/routes/posture_data_api_model.go). Only management reads it:
 * the client's INVALID_POSTURE answer names the failed checks, not what they expect.
 */
import { MFA_PROMPT_GRACE_SECONDS, mfaSecondsLeft, mfaTimeout, type PostureCheckDef, type PostureData } from './posture.js';

type Process = NonNullable<PostureData['processes']>[number];
type Wanted = { osType?: string; path?: string; hashes?: string[]; signerFingerprint?: string; signerFingerprints?: string[] };

const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** `postureCheckFailureProcessActual` of the reported process at `path`; not running when unreported. */
function processActual(data: PostureData, path: string | undefined, withPath: boolean) {
  const p: Partial<Process> = data.processes?.find((x) => x.path === path) ?? {};
  return { ...(withPath ? { path: path ?? '' } : {}), isRunning: p.isRunning ?? false, hash: p.hash ?? '', signerFingerprints: p.signerFingerprints ?? [] };
}

/** `process` / `processMulti` as the check defines it. */
function processExpected(w: Wanted, multi: boolean) {
  const out: Record<string, unknown> = { osType: w.osType ?? '', path: w.path ?? '', hashes: w.hashes ?? [] };
  if (multi) out.signerFingerprints = w.signerFingerprints ?? [];
  else if (w.signerFingerprint) out.signerFingerprint = w.signerFingerprint;
  return out;
}

/** Whether a wake or unlock after MFA completion has used up its grace period (the check then fails). */
function promptOutstanding(prompt: unknown, at: string | undefined, passedAt: Date | undefined, now: Date): boolean {
  if (prompt !== true || passedAt === undefined || at === undefined) return false;
  const t = Date.parse(at);
  return t > passedAt.getTime() && now.getTime() - t >= MFA_PROMPT_GRACE_SECONDS * 1000;
}

/** `postureCheckFailureMfa`'s values and criteria. */
function mfaFailure(check: PostureCheckDef, data: PostureData, now: Date) {
  const passedAt = data.mfa?.passedAt;
  const timeout = mfaTimeout(check);
  const { promptOnWake, promptOnUnlock } = check.data;
  const iso = (t: string | undefined) => (t === undefined ? null : new Date(t).toISOString());
  return {
    actualValue: {
      passedMfa: passedAt !== undefined,
      timedOut: passedAt === undefined || (timeout > 0 && now.getTime() - passedAt.getTime() >= timeout * 1000),
      passedOnWake: promptOnWake !== true || (passedAt !== undefined && !promptOutstanding(promptOnWake, data.endpointState?.wokenAt, passedAt, now)),
      passedOnUnlock: promptOnUnlock !== true || (passedAt !== undefined && !promptOutstanding(promptOnUnlock, data.endpointState?.unlockedAt, passedAt, now)),
    },
    expectedValue: { passedMfa: true, timedOut: false, passedOnWake: promptOnWake === true, passedOnUnlock: promptOnUnlock === true },
    criteria: {
      passedMfaAt: passedAt?.toISOString() ?? null,
      wokenAt: iso(data.endpointState?.wokenAt),
      unlockedAt: iso(data.endpointState?.unlockedAt),
      timeoutSeconds: timeout,
      timeoutRemainingSeconds: passedAt === undefined ? 0 : mfaSecondsLeft(check, data, now),
    },
  };
}

/** The subtype fields of a failure of `check` against `data` at `now`; none for an unknown type. */
export function failureValues(check: PostureCheckDef, data: PostureData, now = new Date()): Record<string, unknown> {
  const d = check.data;
  switch (check.typeId) {
    case 'DOMAIN':
      return { actualValue: data.domain ?? '', expectedValue: list(d.domains) };
    case 'MAC':
      return { actualValue: data.macAddresses ?? [], expectedValue: list(d.macAddresses) };
    case 'OS':
      return {
        actualValue: { type: data.os?.type ?? '', version: data.os?.version ?? '' },
        expectedValue: ((d.operatingSystems as Array<{ type?: string; versions?: string[] }> | undefined) ?? []).map((o) => ({ type: o.type ?? '', versions: o.versions ?? [] })),
      };
    case 'PROCESS': {
      const want = (d.process as Wanted | undefined) ?? {};
      return { actualValue: processActual(data, want.path, false), expectedValue: processExpected(want, false) };
    }
    case 'PROCESS_MULTI': {
      const wanted = (d.processes as Wanted[] | undefined) ?? [];
      const reported = wanted.filter((w) => data.processes?.some((p) => p.path === w.path));
      return {
        actualValue: reported.map((w) => processActual(data, w.path, true)),
        expectedValue: wanted.map((w) => processExpected(w, true)),
        semantic: d.semantic === 'AnyOf' ? 'AnyOf' : 'AllOf',
      };
    }
    case 'MFA':
      return mfaFailure(check, data, now);
    default:
      return {};
  }
}

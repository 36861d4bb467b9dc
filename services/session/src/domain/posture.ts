/**
 * Posture evaluation for a session request: a session of a type is allowed when the posture
 * checks of at least one granting policy of that type all pass (OpenZiti
 * controller/model/session_manager.go EvaluatePostureForService).
 */
import type { SessionType } from './session.js';

/** A posture check as the policy service defines it. */
export interface PostureCheckDef {
  id: string;
  name: string;
  typeId: string;
  data: Record<string, unknown>;
}

/** A service policy granting the service, with the ids of its posture checks. */
export interface GrantingPolicy {
  id: string;
  name: string;
  type: SessionType;
  checkIds: string[];
}

/** Which check a report answered, and when (ISO time). */
export interface Reported {
  postureCheckId: string;
  lastUpdatedAt: string;
}

/** What an API session has reported about its endpoint (posture responses). */
export interface PostureData {
  os?: { type: string; version: string; build?: string };
  domain?: string;
  macAddresses?: string[];
  processes?: Array<{ path: string; isRunning: boolean; hash?: string; signerFingerprints?: string[] } & Partial<Reported>>;
  /** The report behind `os`, `domain` and `macAddresses`, by type (OS, DOMAIN, MAC). */
  reported?: Partial<Record<'OS' | 'DOMAIN' | 'MAC', Reported>>;
  endpointState?: { wokenAt?: string; unlockedAt?: string };
  mfa?: { passedAt?: Date };
}

/**
 * One failed check, as OpenZiti's postureCheckFailure; a recorded failure also carries its type's
 * `actualValue` and `expectedValue` (posture-failure.ts).
 */
export interface CheckFailure {
  postureCheckId: string;
  postureCheckName: string;
  postureCheckType: string;
  [values: string]: unknown;
}

export interface PolicyFailure {
  policyId: string;
  policyName: string;
  checks: CheckFailure[];
}

export interface PostureResult {
  passed: boolean;
  passingPolicyIds: string[];
  failures: PolicyFailure[];
}

const lower = (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : '');
const normalMac = (s: string) => s.toLowerCase().replace(/[^0-9a-f]/g, '');

function processPasses(want: { path?: string; hashes?: string[]; signerFingerprints?: string[] }, data: PostureData): boolean {
  const p = data.processes?.find((x) => x.path === want.path);
  if (!p?.isRunning) return false;
  if (want.hashes?.length && !want.hashes.map(lower).includes(lower(p.hash))) return false;
  if (want.signerFingerprints?.length && !(p.signerFingerprints ?? []).some((f) => want.signerFingerprints!.map(lower).includes(lower(f)))) return false;
  return true;
}

/** Whether one check passes against the data (no data: it does not). */
export function checkPasses(check: PostureCheckDef, data: PostureData, now = new Date()): boolean {
  const d = check.data;
  switch (check.typeId) {
    case 'OS': {
      const oses = (d.operatingSystems as Array<{ type?: string; versions?: string[] }> | undefined) ?? [];
      return !!data.os && oses.some((o) => lower(o.type) === lower(data.os!.type) && versionMatches(o.versions ?? [], data.os!.version));
    }
    case 'DOMAIN':
      return !!data.domain && ((d.domains as string[] | undefined) ?? []).map(lower).includes(lower(data.domain));
    case 'MAC': {
      const have = new Set((data.macAddresses ?? []).map(normalMac));
      return ((d.macAddresses as string[] | undefined) ?? []).some((m) => have.has(normalMac(m)));
    }
    case 'PROCESS': {
      // A PROCESS check names one `signerFingerprint` (PROCESS_MULTI a list).
      const p = (d.process as { path?: string; hashes?: string[]; signerFingerprint?: string } | undefined) ?? {};
      return processPasses({ ...p, signerFingerprints: p.signerFingerprint ? [p.signerFingerprint] : [] }, data);
    }
    case 'PROCESS_MULTI': {
      const ps = (d.processes as Array<{ path?: string }> | undefined) ?? [];
      return d.semantic === 'AnyOf' ? ps.some((p) => processPasses(p, data)) : ps.length > 0 && ps.every((p) => processPasses(p, data));
    }
    case 'MFA':
      return mfaSecondsLeft(check, data, now) !== 0;
    default:
      return false;
  }
}

/** `versions` entries are exact versions or comparisons (`>=10.0.19041`); none: any version. */
export function versionMatches(versions: readonly string[], version: string): boolean {
  if (versions.length === 0) return true;
  return versions.some((v) => v.split(/\s+/).filter(Boolean).every((cond) => compareCondition(cond, version)));
}

function compareCondition(cond: string, version: string): boolean {
  const m = /^(>=|<=|>|<|=)?(.+)$/.exec(cond)!;
  const c = compareVersions(version, m[2]!);
  switch (m[1]) {
    case '>=': return c >= 0;
    case '<=': return c <= 0;
    case '>': return c > 0;
    case '<': return c < 0;
    default: return c === 0;
  }
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split('.').map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/**
 * Evaluates the granting policies of the session's type. No policy of that type means nothing to
 * check (the permission check refuses that case before).
 */
export function evaluatePosture(policies: readonly GrantingPolicy[], type: SessionType, checks: ReadonlyMap<string, PostureCheckDef>, data: PostureData, now = new Date()): PostureResult {
  const passingPolicyIds: string[] = [];
  const failures: PolicyFailure[] = [];
  const ofType = policies.filter((p) => p.type === type);
  for (const p of ofType) {
    const failed = p.checkIds
      .map((id) => checks.get(id))
      .filter((c): c is PostureCheckDef => c !== undefined && !checkPasses(c, data, now))
      .map((c) => ({ postureCheckId: c.id, postureCheckName: c.name, postureCheckType: c.typeId }));
    if (failed.length === 0) passingPolicyIds.push(p.id);
    else failures.push({ policyId: p.id, policyName: p.name, checks: failed });
  }
  return { passed: ofType.length === 0 || passingPolicyIds.length > 0, passingPolicyIds, failures };
}

/** A posture query as a client sees it for its API session. */
export interface QueryState {
  isPassing: boolean;
  /** Seconds until the query must be answered again; -1 when it never times out. */
  timeoutRemaining: number;
}

/** How long an MFA pass lasts for `check`, in seconds; -1 (no positive `timeoutSeconds`): for ever. */
export function mfaTimeout(check: PostureCheckDef): number {
  const t = check.data.timeoutSeconds;
  return typeof t === 'number' && t > 0 ? t : -1;
}

/** How long an MFA pass survives a wake or unlock its check prompts on (OpenZiti's grace period). */
export const MFA_PROMPT_GRACE_SECONDS = 300;

/**
 * Whole seconds left of the API session's MFA pass under an MFA check at `now`: 0 when MFA was
 * not passed or the pass has run out, -1 when it was passed and nothing limits it. A pass lasts
 * `timeoutSeconds` from MFA completion; an endpoint that woke (`promptOnWake`) or was unlocked
 * (`promptOnUnlock`) after that has at most the grace period left from then, until MFA is done
 * again.
 */
export function mfaSecondsLeft(check: PostureCheckDef, data: PostureData, now: Date): number {
  const passedAt = data.mfa?.passedAt;
  if (passedAt === undefined) return 0;
  const secondsSince = (t: number) => (now.getTime() - t) / 1000;
  const timeout = mfaTimeout(check);
  let left = timeout < 0 ? -1 : Math.max(0, Math.ceil(timeout - secondsSince(passedAt.getTime())));
  const prompts: Array<[unknown, string | undefined]> = [
    [check.data.promptOnWake, data.endpointState?.wokenAt],
    [check.data.promptOnUnlock, data.endpointState?.unlockedAt],
  ];
  for (const [prompt, at] of prompts) {
    const t = at === undefined ? NaN : Date.parse(at);
    if (prompt !== true || !(t > passedAt.getTime())) continue;
    const grace = Math.max(0, Math.ceil(MFA_PROMPT_GRACE_SECONDS - secondsSince(t)));
    left = left < 0 ? grace : Math.min(left, grace);
  }
  return left;
}

/** Whether a wake or unlock after MFA completion limits the pass (see mfaSecondsLeft). */
function mfaPrompted(check: PostureCheckDef, data: PostureData): boolean {
  const passedAt = data.mfa?.passedAt?.getTime();
  if (passedAt === undefined) return false;
  const after = (at: string | undefined) => at !== undefined && Date.parse(at) > passedAt;
  return (check.data.promptOnWake === true && after(data.endpointState?.wokenAt))
    || (check.data.promptOnUnlock === true && after(data.endpointState?.unlockedAt));
}

/**
 * The state of one posture query against an API session's data at `now`. Only MFA checks time
 * out: `timeoutRemaining` counts down what mfaSecondsLeft allows, and is -1 while nothing limits
 * the pass (no timeout, no prompting wake or unlock). An unknown check does not pass.
 */
export function queryState(check: PostureCheckDef | undefined, data: PostureData, now = new Date()): QueryState {
  if (!check) return { isPassing: false, timeoutRemaining: -1 };
  const isPassing = checkPasses(check, data, now);
  if (check.typeId !== 'MFA' || (mfaTimeout(check) < 0 && !mfaPrompted(check, data))) return { isPassing, timeoutRemaining: -1 };
  return { isPassing, timeoutRemaining: mfaSecondsLeft(check, data, now) };
}

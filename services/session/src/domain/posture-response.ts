/**
 * Posture responses (`POST /posture-response[-bulk]`): what an endpoint reports, checked per
 * type (as the specs' postureResponse*Create) and folded into the API session's posture data.
 */
import { fieldError } from '@edge/errors';
import { mfaTimeout, queryState, type PostureCheckDef, type PostureData } from './posture.js';

type Raw = Record<string, unknown>;

const str = (r: Raw, k: string, field: string): string => {
  const v = r[k];
  if (typeof v !== 'string' || v === '') throw fieldError(field, 'is required', v ?? null);
  return v;
};

/**
 * Folds one response into `data`; `at` is its position in a bulk body, for error fields, and
 * `now` the time it arrived (ISO).
 */
export function applyPostureResponse(data: PostureData, raw: unknown, at = '', now = new Date().toISOString()): PostureData {
  const f = (name: string) => (at ? `${at}.${name}` : name);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw fieldError(at || '(body)', 'must be an object', raw ?? null);
  const r = raw as Raw;
  const reported = { postureCheckId: str(r, 'id', f('id')), lastUpdatedAt: now };
  const stamp = (type: 'OS' | 'DOMAIN' | 'MAC') => ({ ...data.reported, [type]: reported });
  switch (r.typeId) {
    case 'OS': {
      const os = { type: str(r, 'type', f('type')), version: str(r, 'version', f('version')), build: typeof r.build === 'string' ? r.build : '' };
      return { ...data, os, reported: stamp('OS') };
    }
    case 'DOMAIN':
      return { ...data, domain: str(r, 'domain', f('domain')), reported: stamp('DOMAIN') };
    case 'MAC': {
      const macs = r.macAddresses;
      if (!Array.isArray(macs) || macs.some((m) => typeof m !== 'string')) throw fieldError(f('macAddresses'), 'must be a list of strings', macs ?? null);
      return { ...data, macAddresses: macs as string[], reported: stamp('MAC') };
    }
    case 'PROCESS': {
      const path = str(r, 'path', f('path'));
      const prints = r.signerFingerprints;
      if (prints !== undefined && (!Array.isArray(prints) || prints.some((p) => typeof p !== 'string'))) throw fieldError(f('signerFingerprints'), 'must be a list of strings', prints);
      const process = {
        path, isRunning: r.isRunning === true, hash: typeof r.hash === 'string' ? r.hash : undefined, signerFingerprints: (prints as string[] | undefined) ?? [], ...reported,
      };
      return { ...data, processes: [...(data.processes ?? []).filter((p) => p.path !== path), process] };
    }
    case 'ENDPOINT_STATE':
      // Shown in the posture data, and a wake or unlock after MFA starts an MFA check's grace period.
      return {
        ...data,
        endpointState: { ...data.endpointState, ...(r.woken === true ? { wokenAt: now } : {}), ...(r.unlocked === true ? { unlockedAt: now } : {}) },
      };
    default:
      throw fieldError(f('typeId'), 'must be one of OS, DOMAIN, MAC, PROCESS, ENDPOINT_STATE', r.typeId ?? null);
  }
}

/** A service whose MFA posture queries a wake or unlock cut short (`postureResponseService`). */
export interface PromptedService {
  id: string;
  name: string;
  postureQueryType: 'MFA';
  timeout: number;
  timeoutRemaining: number;
}

/** What the endpoint reported in a body: whether it woke and whether it was unlocked. */
export function endpointEvents(responses: readonly unknown[]): { woken: boolean; unlocked: boolean } {
  const states = responses.filter((r): r is Raw => !!r && typeof r === 'object' && (r as Raw).typeId === 'ENDPOINT_STATE');
  return { woken: states.some((r) => r.woken === true), unlocked: states.some((r) => r.unlocked === true) };
}

/**
 * The caller's services with an MFA posture query that prompts on what the endpoint reported,
 * each with the shortest time left of those queries (as OpenZiti answers a posture response).
 */
export function promptedServices(
  services: ReadonlyArray<{ id: string; name: string; checkIds: readonly string[] }>,
  checks: ReadonlyMap<string, PostureCheckDef>,
  data: PostureData,
  events: { woken: boolean; unlocked: boolean },
  now = new Date(),
): PromptedService[] {
  const prompts = (c: PostureCheckDef) => c.typeId === 'MFA' && ((events.woken && c.data.promptOnWake === true) || (events.unlocked && c.data.promptOnUnlock === true));
  const out: PromptedService[] = [];
  for (const s of services) {
    const mfa = s.checkIds.map((id) => checks.get(id)).filter((c): c is PostureCheckDef => c !== undefined && prompts(c));
    if (mfa.length === 0) continue;
    const states = mfa.map((c) => ({ timeout: mfaTimeout(c), left: queryState(c, data, now).timeoutRemaining }));
    const soonest = states.reduce((a, b) => (b.left >= 0 && (a.left < 0 || b.left < a.left) ? b : a));
    out.push({ id: s.id, name: s.name, postureQueryType: 'MFA', timeout: soonest.timeout, timeoutRemaining: soonest.left });
  }
  return out;
}

/**
 * Posture responses (`POST /posture-response[-bulk]`): what an endpoint reports, checked per
 * type (as the specs' postureResponse*Create) and folded into the API session's posture data.
 */
import { fieldError } from '@edge/errors';
import type { PostureData } from './posture.js';

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
      // Kept for the posture data view; MFA re-prompts on wake or unlock are not enforced.
      return {
        ...data,
        endpointState: { ...data.endpointState, ...(r.woken === true ? { wokenAt: now } : {}), ...(r.unlocked === true ? { unlockedAt: now } : {}) },
      };
    default:
      throw fieldError(f('typeId'), 'must be one of OS, DOMAIN, MAC, PROCESS, ENDPOINT_STATE', r.typeId ?? null);
  }
}

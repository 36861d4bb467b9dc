/**
 * Posture checks as evaluation reads them: typed definitions, one message per check, and the
 * granting policies of a service with their checks (a client service's `postureQueries`).
 */
import type { policy as pb } from '@edge/proto';
import type { GrantingPolicy } from '../domain/evaluation.js';
import type { Json } from '../domain/entity.js';
import type { PostureCheck } from '../domain/posture-check.js';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function processOf(v: unknown): pb.PostureProcess {
  const p = (v && typeof v === 'object' ? v : {}) as Json;
  return {
    osType: text(p.osType), path: text(p.path), hashes: strings(p.hashes),
    signerFingerprint: text(p.signerFingerprint), signerFingerprints: strings(p.signerFingerprints),
  };
}

/** The operating systems of a stored list (a check's or a type's): `{type, versions}` objects. */
export function operatingSystemsOf(v: unknown): pb.PostureOperatingSystem[] {
  const oses = Array.isArray(v) ? v.filter((o): o is Json => o !== null && typeof o === 'object') : [];
  return oses.map((o) => ({ type: text(o.type), versions: strings(o.versions) }));
}

/** A posture check with the fields of its type. */
export function postureCheckDefinition(c: PostureCheck): pb.PostureCheckDefinition {
  const d = c.data;
  return {
    id: c.id, name: c.name, typeId: c.typeId, version: c.version, tagsJson: JSON.stringify(c.tags),
    createdAt: c.createdAt.toISOString(), updatedAt: c.updatedAt.toISOString(),
    operatingSystems: operatingSystemsOf(d.operatingSystems),
    ...(c.typeId === 'PROCESS' ? { process: processOf(d.process) } : {}),
    processes: Array.isArray(d.processes) ? d.processes.map(processOf) : [],
    semantic: text(d.semantic), domains: strings(d.domains), macAddresses: strings(d.macAddresses),
    timeoutSeconds: typeof d.timeoutSeconds === 'number' ? d.timeoutSeconds : -1,
    promptOnWake: d.promptOnWake === true, promptOnUnlock: d.promptOnUnlock === true, ignoreLegacyEndpoints: d.ignoreLegacyEndpoints === true,
  };
}

/** Per granting policy, its posture checks. */
export function postureQueryGroups(policies: readonly GrantingPolicy[]): pb.PostureQueryGroup[] {
  return policies.map((p) => ({ policyId: p.id, policyName: p.name, policyType: p.type, checks: p.checks.map(postureCheckDefinition) }));
}

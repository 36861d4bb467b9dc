/**
 * Posture checks as the policy service sends them (typed definitions, grouped per granting
 * policy) ↔ what posture evaluation reads: the type's fields by their API names.
 */
import type { policy } from '@edge/proto';
import type { GrantingPolicy, PostureCheckDef } from './domain/posture.js';

type Definition = policy.PostureCheckDefinition__Output;
type Process = policy.PostureProcess__Output;

const processOf = (p: Process | null | undefined, multi: boolean) => ({
  osType: p?.osType ?? '', path: p?.path ?? '', hashes: p?.hashes ?? [],
  ...(multi ? { signerFingerprints: p?.signerFingerprints ?? [] } : p?.signerFingerprint ? { signerFingerprint: p.signerFingerprint } : {}),
});

/** The fields of a check's type, as its API body names them. */
function typeFields(d: Definition): Record<string, unknown> {
  switch (d.typeId) {
    case 'OS': return { operatingSystems: d.operatingSystems.map((o) => ({ type: o.type, versions: o.versions })) };
    case 'PROCESS': return { process: processOf(d.process, false) };
    case 'PROCESS_MULTI': return { processes: d.processes.map((p) => processOf(p, true)), semantic: d.semantic };
    case 'DOMAIN': return { domains: d.domains };
    case 'MAC': return { macAddresses: d.macAddresses };
    case 'MFA': return { timeoutSeconds: Number(d.timeoutSeconds), promptOnWake: d.promptOnWake, promptOnUnlock: d.promptOnUnlock, ignoreLegacyEndpoints: d.ignoreLegacyEndpoints };
    default: return {};
  }
}

/** A posture check as evaluation reads it. */
export function postureCheckDef(d: Definition): PostureCheckDef {
  return { id: d.id, name: d.name, typeId: d.typeId, data: typeFields(d) };
}

/** The granting policies of posture query groups, with the ids of their checks. */
export function grantingPolicies(groups: readonly policy.PostureQueryGroup__Output[]): GrantingPolicy[] {
  return groups.map((g) => ({ id: g.policyId, name: g.policyName, type: g.policyType as GrantingPolicy['type'], checkIds: g.checks.map((c) => c.id) }));
}

/** The checks of posture query groups, by id. */
export function checksOf(groups: readonly policy.PostureQueryGroup__Output[]): Map<string, PostureCheckDef> {
  return new Map(groups.flatMap((g) => g.checks).map((c) => [c.id, postureCheckDef(c)]));
}

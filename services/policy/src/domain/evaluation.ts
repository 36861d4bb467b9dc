/**
 * What an identity is told about the services it may use: its permissions (the types of the
 * policies granting it) and, per granting policy, the posture queries to answer
 * (controller/model/posture_response_model.go and service_api_model.go in OpenZiti).
 */
import type { Json } from './entity.js';
import type { PostureCheck } from './posture-check.js';

/** A service policy granting a service, with the posture checks its roles select. */
export interface GrantingPolicy {
  id: string;
  type: 'Dial' | 'Bind';
  checks: PostureCheck[];
}

/**
 * One posture query of a check. Posture data lives with sessions (the session service), so
 * the policy service cannot tell whether a query passes: it reports it as not passing, and a
 * policy without checks as passing. The client API asks the session service for the caller's
 * API session and fills in `isPassing` and `timeoutRemaining`.
 */
export function postureQuery(check: PostureCheck): Json {
  const base: Json = {
    id: check.id, createdAt: check.createdAt.toISOString(), updatedAt: check.updatedAt.toISOString(), tags: check.tags,
    queryType: check.typeId, isPassing: false, timeout: -1, timeoutRemaining: -1,
  };
  const d = check.data;
  switch (check.typeId) {
    case 'PROCESS': {
      const p = d.process as { osType?: string; path?: string } | undefined;
      return { ...base, process: { osType: p?.osType, path: p?.path } };
    }
    case 'PROCESS_MULTI': {
      const ps = (d.processes as Array<{ osType?: string; path?: string }> | undefined) ?? [];
      return { ...base, processes: ps.map((p) => ({ osType: p.osType, path: p.path })) };
    }
    case 'MFA': {
      const timeout = typeof d.timeoutSeconds === 'number' ? d.timeoutSeconds : -1;
      return { ...base, timeout, timeoutRemaining: timeout, promptOnWake: d.promptOnWake === true, promptOnUnlock: d.promptOnUnlock === true };
    }
    default:
      return base;
  }
}

/** The `postureQueries` of a service: one entry per granting policy. */
export function postureQueries(policies: readonly GrantingPolicy[]): Json[] {
  return policies.map((p) => {
    const queries = p.checks.map(postureQuery);
    return { policyId: p.id, policyType: p.type, isPassing: queries.length === 0, postureQueries: queries };
  });
}

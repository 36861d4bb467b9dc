/**
 * Services: HTTP bodies ↔ proto messages, and the `serviceDetail` both APIs render.
 */
import type { FastifyRequest } from 'fastify';
import type { policy } from '@edge/proto';
import { baseEntity, withFields, jsonObject } from '../../shared/entity.js';
import type { ServiceBody } from './schemas.js';

/** The fields PUT replaces; `encryptionRequired` is set at create only. */
export const UPDATE_FIELDS = ['name', 'configs', 'maxIdleTimeMillis', 'roleAttributes', 'tags', 'terminatorStrategy'];

const LINKS = ['configs', 'service-edge-router-policies', 'service-policies', 'terminators', 'identities', 'edge-routers'];

export function toFields(b: ServiceBody): policy.ServiceFields {
  return {
    name: b.name ?? '', encryptionRequired: b.encryptionRequired ?? false, maxIdleTimeMillis: b.maxIdleTimeMillis ?? 0,
    terminatorStrategy: b.terminatorStrategy ?? '', roleAttributes: b.roleAttributes ?? [], configs: b.configs ?? [],
    tagsJson: JSON.stringify(b.tags ?? {}),
  };
}

/** The repeatable `configTypes` query parameter (names or ids, or `all`). */
export function configTypesParam(req: FastifyRequest): string[] {
  const raw = (req.query as Record<string, unknown>).configTypes;
  const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return values.filter((v): v is string => typeof v === 'string').flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
}

/** The state of a posture query for the caller's API session. */
export interface QueryState {
  isPassing: boolean;
  timeoutRemaining: number;
}

type Definition = policy.PostureCheckDefinition__Output;

/**
 * `postureQuery` of a check (controller/model/posture_response_model.go in OpenZiti): not
 * passing and no timeout until the caller's state says otherwise.
 */
function postureQuery(c: Definition, state: QueryState | undefined) {
  const timeout = c.typeId === 'MFA' ? Number(c.timeoutSeconds) : -1;
  const base = {
    id: c.id, createdAt: c.createdAt, updatedAt: c.updatedAt, tags: jsonObject(c.tagsJson), queryType: c.typeId,
    isPassing: false, timeout, timeoutRemaining: timeout,
  };
  const typed = c.typeId === 'PROCESS' ? { process: { osType: c.process?.osType, path: c.process?.path } }
    : c.typeId === 'PROCESS_MULTI' ? { processes: c.processes.map((p) => ({ osType: p.osType, path: p.path })) }
      : c.typeId === 'MFA' ? { promptOnWake: c.promptOnWake, promptOnUnlock: c.promptOnUnlock } : {};
  return { ...base, ...typed, ...state, _links: { self: { href: `./posture-checks/${c.id}` } } };
}

/** `serviceDetail`. */
export function renderService(s: policy.Service__Output) {
  return renderServiceWith(s, undefined);
}

/**
 * `serviceDetail` as a client sees it: each posture query says whether it passes for the
 * caller's API session, and a policy passes when all its queries do.
 */
export function renderClientService(s: policy.Service__Output, states: ReadonlyMap<string, QueryState>) {
  return renderServiceWith(s, states);
}

function renderServiceWith(s: policy.Service__Output, states: ReadonlyMap<string, QueryState> | undefined) {
  return withFields(baseEntity(s, 'services', LINKS), {
    name: s.name,
    terminatorStrategy: s.terminatorStrategy,
    roleAttributes: s.roleAttributes,
    configs: s.configs,
    config: jsonObject(s.configJson),
    encryptionRequired: s.encryptionRequired,
    maxIdleTimeMillis: Number(s.maxIdleTimeMillis),
    permissions: s.permissions,
    postureQueries: s.postureQueries.map((g) => postureQueryGroup(g, states)),
  });
}

/**
 * A granting policy's posture queries, with their state when known; a policy passes when all its
 * queries do (with no state known, when it has none).
 */
function postureQueryGroup(g: policy.PostureQueryGroup__Output, states: ReadonlyMap<string, QueryState> | undefined) {
  const postureQueries = g.checks.map((c) => postureQuery(c, states?.get(c.id)));
  return { policyId: g.policyId, policyType: g.policyType, isPassing: postureQueries.every((q) => q.isPassing), postureQueries };
}

/**
 * Services: HTTP bodies ↔ proto messages, and the `serviceDetail` both APIs render.
 */
import type { FastifyRequest } from 'fastify';
import type { policy } from '@edge/proto';
import { baseEntity, jsonObject } from '../../shared/entity.js';
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

/** A posture query group of a service: the granting policy and the queries of its checks. */
interface PostureQueryGroup {
  policyId: string;
  isPassing: boolean;
  postureQueries: Array<{ id: string; isPassing: boolean; timeoutRemaining: number }>;
}

/** The state of a posture query for the caller's API session. */
export interface QueryState {
  isPassing: boolean;
  timeoutRemaining: number;
}

/** The posture query groups a service carries (empty when broken). */
export function postureQueryGroups(s: policy.Service__Output): PostureQueryGroup[] {
  try {
    const groups: unknown = JSON.parse(s.postureQueriesJson || '[]');
    return Array.isArray(groups) ? (groups as PostureQueryGroup[]) : [];
  } catch {
    return [];
  }
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
  return {
    ...baseEntity(s, 'services', LINKS),
    name: s.name,
    terminatorStrategy: s.terminatorStrategy,
    roleAttributes: s.roleAttributes,
    configs: s.configs,
    config: jsonObject(s.configJson),
    encryptionRequired: s.encryptionRequired,
    maxIdleTimeMillis: Number(s.maxIdleTimeMillis),
    permissions: s.permissions,
    postureQueries: postureQueryGroups(s).map((g) => withQueryState(g, states)),
  };
}

/** Posture queries carry the links of the posture checks they come from, and their state when known. */
function withQueryState(group: PostureQueryGroup, states: ReadonlyMap<string, QueryState> | undefined) {
  const postureQueries = (group.postureQueries ?? []).map((q) => ({
    ...q, ...states?.get(q.id), _links: { self: { href: `./posture-checks/${q.id}` } },
  }));
  return { ...group, ...(states ? { isPassing: postureQueries.every((q) => q.isPassing) } : {}), postureQueries };
}

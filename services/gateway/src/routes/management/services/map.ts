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

/** `serviceDetail`. */
export function renderService(s: policy.Service__Output) {
  let postureQueries: unknown[] = [];
  try {
    postureQueries = JSON.parse(s.postureQueriesJson || '[]') as unknown[];
  } catch {
    postureQueries = [];
  }
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
    postureQueries: postureQueries.map(withQueryLinks),
  };
}

/** Posture queries carry the links of the posture checks they come from. */
function withQueryLinks(p: unknown) {
  const entry = p as { postureQueries?: Array<{ id: string }> };
  return {
    ...entry,
    postureQueries: (entry.postureQueries ?? []).map((q) => ({ ...q, _links: { self: { href: `./posture-checks/${q.id}` } } })),
  };
}

/**
 * What the three policy families share: rendering with `*RolesDisplay`, the CRUD routes, and
 * the identities a policy selects (evaluated by the identity service on its own table).
 */
import type { FastifyRequest } from 'fastify';
import { created, empty, ok } from '@edge/envelope';
import { parseBody, type z } from '@edge/schemas';
import type { common } from '@edge/proto';
import type { Clients } from '../../clients.js';
import type { Router } from '../../http/route.js';
import { baseEntity, withFields, idParam, presentFields } from './entity.js';
import { listBody, listQuery } from './list.js';
import { renderIdentity } from './render.js';
import { renderEdgeRouters } from '../management/routers/map.js';

type Message = { id: string; createdAt: string; updatedAt: string; tagsJson: string; name: string; semantic: string } & Record<string, unknown>;

const LINKS: Record<string, string[]> = {
  'service-policies': ['services', 'identities', 'posture-checks'],
  'edge-router-policies': ['edge-routers', 'identities'],
  'service-edge-router-policies': ['edge-routers', 'services'],
};

const OPTIONAL = ['type', 'isSystem'];
const ROLE_FIELDS = ['identityRoles', 'serviceRoles', 'postureCheckRoles', 'edgeRouterRoles'];

/** `servicePolicyDetail`, `edgeRouterPolicyDetail` or `serviceEdgeRouterPolicyDetail`. */
export function renderPolicy(p: object, collection: string) {
  const m = p as Message;
  const out: Record<string, unknown> = withFields(baseEntity(m, collection, LINKS[collection]), { name: m.name, semantic: m.semantic });
  for (const k of OPTIONAL) if (k in m) out[k] = m[k];
  for (const k of ROLE_FIELDS) {
    if (!(k in m)) continue;
    out[k] = m[k];
    out[`${k}Display`] = m[`${k}Display`];
  }
  return out;
}

/** The policy RPCs of one family, by their lowerCamel names on the policy client. */
export interface PolicyFamily {
  collection: 'service-policies' | 'edge-router-policies' | 'service-edge-router-policies';
  list(query: common.ListQuery): Promise<{ items: object[]; meta: common.ListMeta__Output | null }>;
  get(id: string): Promise<object>;
  create(fields: object): Promise<{ id: string }>;
  update(id: string, fields: object, updateMask: string[]): Promise<unknown>;
  delete(id: string): Promise<unknown>;
  schemas: { create: z.ZodType; update: z.ZodType; patch: z.ZodType };
  /** The JSON names of the writable fields (PUT replaces all of them). */
  fields: string[];
  toFields(body: Record<string, unknown>): object;
}

/** Registers list, create, detail, replace, patch and delete of a policy family. */
export function registerPolicyRoutes(route: Router, base: string, f: PolicyFamily): void {
  const url = `${base}/${f.collection}`;

  route('GET', url, 'admin', async (req) => {
    const page = await f.list(listQuery(req));
    return { body: listBody(page.items.map((p) => renderPolicy(p, f.collection)), page.meta) };
  });

  route('POST', url, 'admin', async (req) => {
    const { id } = await f.create(f.toFields(parseBody(f.schemas.create, req.body) as Record<string, unknown>));
    return { status: 201, body: created(id, f.collection) };
  }, { body: f.schemas.create, status: 201 });

  route('GET', `${url}/:id`, 'admin', async (req) => ({ body: ok(renderPolicy(await f.get(idParam(req.params)), f.collection)) }));

  route('PUT', `${url}/:id`, 'admin', async (req) => {
    await f.update(idParam(req.params), f.toFields(parseBody(f.schemas.update, req.body) as Record<string, unknown>), f.fields);
    return { body: empty() };
  }, { body: f.schemas.update });

  route('PATCH', `${url}/:id`, 'admin', async (req) => {
    const body = parseBody(f.schemas.patch, req.body) as Record<string, unknown>;
    await f.update(idParam(req.params), f.toFields(body), presentFields(req.body, f.fields));
    return { body: empty() };
  }, { body: f.schemas.patch });

  route('DELETE', `${url}/:id`, 'admin', async (req) => {
    await f.delete(idParam(req.params));
    return { body: empty() };
  });
}

/**
 * The edge routers a policy's edge router roles select, listed by the identity service (which
 * owns routers) with the roles as its role filter. A policy without such roles selects none.
 */
export async function listPolicyEdgeRouters(req: FastifyRequest, clients: Clients, policy: { edgeRouterRoles: string[]; semantic: string }) {
  const query = { ...listQuery(req), roleFilter: policy.edgeRouterRoles, roleSemantic: policy.semantic };
  if (policy.edgeRouterRoles.length === 0) query.filter = 'false';
  const page = await clients.identity.listRouters({ kind: 'edge', query });
  return listBody(await renderEdgeRouters(clients, page.routers), page.meta);
}

/**
 * The identities a policy's identity roles select, listed by the identity service (which owns
 * identities) with the roles as its role filter. A policy without identity roles selects none.
 */
export async function listPolicyIdentities(req: FastifyRequest, clients: Clients, policy: { identityRoles: string[]; semantic: string }) {
  const query = { ...listQuery(req), roleFilter: policy.identityRoles, roleSemantic: policy.semantic };
  if (policy.identityRoles.length === 0) query.filter = 'false';
  const page = await clients.identity.listIdentities({ query });
  const { summaries } = await clients.auth.getIdentityAuthSummaries({ identityIds: page.identities.map((i) => i.id) });
  const byId = new Map(summaries.map((s) => [s.identityId, s]));
  return listBody(page.identities.map((i) => renderIdentity(i, byId.get(i.id))), page.meta);
}

/**
 * The OpenAPI 3.0 documents this controller serves, one per API, built from the routes it
 * registered: every route under an API's base path is one operation, and the zod schema its
 * handler parses the body with is the operation's request body. Nothing is written by hand, so
 * the documents cannot drift from the routes.
 */
import { z } from 'zod';
import type { Method, RouteEntry } from '../http/route.js';

export interface ApiDescription {
  /** The id the document is served under (`/specs/{id}`). */
  id: string;
  /** A human name (`specDetail.name`). */
  name: string;
  /** The base path, e.g. `/edge/client/v1`. */
  base: string;
  description: string;
}

/** The path of a route relative to its API's base, in OpenAPI form (`:id` → `{id}`). */
export function openApiPath(base: string, url: string): string | undefined {
  if (url !== base && !url.startsWith(`${base}/`)) return undefined;
  const rest = url.slice(base.length) || '/';
  return rest.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** `getIdentitiesIdEdgeRouters` for GET /identities/{id}/edge-routers: unique per document. */
function operationId(method: Method, path: string): string {
  const words = path
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1));
  return method.toLowerCase() + (words.join('') || 'Root');
}

type Json = Record<string, unknown>;

const isNullOnly = (s: unknown) => {
  const e = (s as Json | null)?.enum;
  return Array.isArray(e) && e.length === 1 && e[0] === null;
};

/**
 * OpenAPI 3.0 has no `null` type: a `z.null()` branch of an anyOf becomes `nullable` on the
 * union (zod's `enum: [null]` rendering stops Swagger UI from drawing the page).
 */
function withoutNullTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutNullTypes);
  if (!node || typeof node !== 'object') return node;
  if (isNullOnly(node)) return { nullable: true };
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) out[k] = withoutNullTypes(v);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = (node as Json)[key];
    if (Array.isArray(branches) && branches.some(isNullOnly)) {
      out[key] = branches.filter((b) => !isNullOnly(b)).map(withoutNullTypes);
      out.nullable = true;
    }
  }
  return out;
}

/** The JSON schema of a body, in OpenAPI 3.0's dialect; unrepresentable parts become `{}`. */
function bodySchema(schema: z.ZodType): Json {
  const s = withoutNullTypes(z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' })) as Json;
  delete s.$schema;
  return s;
}

const ERROR_RESPONSE = { description: 'An error in the OpenZiti envelope', content: { 'application/json': { schema: { $ref: '#/components/schemas/apiErrorEnvelope' } } } };

function operation(entry: RouteEntry, path: string) {
  const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  const status = String(entry.doc.status ?? 200);
  const produces = entry.doc.produces ?? 'application/json';
  const success = !entry.doc.produces ? { $ref: '#/components/schemas/envelope' } : { type: produces.endsWith('json') ? 'object' : 'string' };
  const op: Record<string, unknown> = {
    operationId: operationId(entry.method, path),
    tags: [path.split('/')[1] || 'informational'],
    security: entry.access === 'public' ? [] : [{ ztSession: [] }],
    responses: {
      [status]: { description: 'Success', content: { [produces]: { schema: success } } },
      '400': ERROR_RESPONSE,
      ...(entry.access === 'public' ? {} : { '401': ERROR_RESPONSE }),
      '404': ERROR_RESPONSE,
    },
  };
  if (entry.access === 'admin') op.description = 'Requires admin access.';
  if (params.length) op.parameters = params;
  const content: Record<string, unknown> = {};
  if (entry.doc.body) content['application/json'] = { schema: bodySchema(entry.doc.body) };
  // PEM text: certificates to verify, CSRs of the legacy enrollment path.
  if (entry.doc.textBody) content['text/plain'] = { schema: { type: 'string' } };
  if (Object.keys(content).length > 0) op.requestBody = { required: true, content };
  return op;
}

/** The OpenAPI document of one API from the routes registered so far. */
export function buildOpenApi(api: ApiDescription, routes: readonly RouteEntry[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const entry of routes) {
    const path = openApiPath(api.base, entry.url);
    if (!path) continue;
    const ops = (paths[path] ??= {});
    // `${base}` and `${base}/` are one operation.
    ops[entry.method.toLowerCase()] ??= operation(entry, path);
  }
  const sorted = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: '3.0.3',
    info: { title: api.name, description: api.description, version },
    servers: [{ url: api.base }],
    paths: sorted,
    components: {
      securitySchemes: { ztSession: { type: 'apiKey', in: 'header', name: 'zt-session' } },
      schemas: {
        meta: { type: 'object', additionalProperties: true },
        envelope: {
          type: 'object',
          required: ['data', 'meta'],
          properties: { data: {}, meta: { $ref: '#/components/schemas/meta' } },
        },
        apiErrorEnvelope: {
          type: 'object',
          required: ['error', 'meta'],
          properties: {
            error: {
              type: 'object',
              properties: {
                code: { type: 'string' },
                message: { type: 'string' },
                requestId: { type: 'string' },
                cause: { type: 'object', additionalProperties: true },
                causeMessage: { type: 'string' },
              },
            },
            meta: { $ref: '#/components/schemas/meta' },
          },
        },
      },
    },
  };
}

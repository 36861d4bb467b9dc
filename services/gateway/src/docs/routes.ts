/**
 * `/specs`, `/specs/{id}`, `/specs/{id}/spec` on both APIs, and an interactive API reference at
 * `{base}/docs` (Swagger UI, served from this process: the page fetches nothing from elsewhere).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { list, ok, selfLink } from '@edge/envelope';
import { ZitiError } from '@edge/errors';
import type { Result, RouteEntry, Router } from '../http/route.js';
import { idParam } from '../routes/shared/entity.js';
import { CLIENT_BASE, MANAGEMENT_BASE, VERSION } from '../routes/root.js';
import { buildOpenApi, type ApiDescription } from './openapi.js';

export const APIS: readonly ApiDescription[] = [
  {
    id: 'edge-client',
    name: 'Edge Client API',
    base: CLIENT_BASE,
    description: 'What SDKs and tunnelers use: authentication, enrollment, services, sessions, posture.',
  },
  {
    id: 'edge-management',
    name: 'Edge Management API',
    base: MANAGEMENT_BASE,
    description: 'What operators and consoles use: identities, routers, services, policies, certificate authorities.',
  },
];

/** OpenZiti serves its own document as `swagger`; here that id names the API it is asked on. */
const OWN_SPEC_ALIAS = 'swagger';

/** Security headers of the docs pages: only this origin, no framing. */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-cache',
};

/** The Swagger UI files the page loads, by the name it asks for. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
};

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const assetCache = new Map<string, Promise<string>>();

function asset(name: string): Promise<string> {
  let p = assetCache.get(name);
  if (!p) {
    p = readFile(join(swaggerUiDir, name), 'utf8');
    assetCache.set(name, p);
  }
  return p;
}

function docsPage(api: ApiDescription): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${api.name}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${api.base}/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${api.base}/docs/swagger-ui-bundle.js"></script>
<script src="${api.base}/docs/init.js"></script>
</body>
</html>
`;
}

/** Starts Swagger UI on the document; no validator badge (it would call a remote service). */
function initScript(api: ApiDescription): string {
  return `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(`${api.base}/docs/openapi.json`)}, dom_id: '#swagger-ui', validatorUrl: null, deepLinking: true, docExpansion: 'none' });\n`;
}

/** Registers the spec and docs routes; the documents describe every route in `registry`. */
export function registerDocsRoutes(route: Router, registry: readonly RouteEntry[]): void {
  const startedAt = new Date().toISOString();
  const documents = new Map<string, ReturnType<typeof buildOpenApi>>();
  // Built on first use, once every route has been registered.
  const documentOf = (api: ApiDescription) => {
    let d = documents.get(api.id);
    if (!d) {
      d = buildOpenApi(api, registry, VERSION);
      documents.set(api.id, d);
    }
    return d;
  };
  const specDetail = (api: ApiDescription) => ({
    id: api.id,
    name: api.name,
    createdAt: startedAt,
    updatedAt: startedAt,
    tags: {},
    _links: { ...selfLink('specs', api.id), spec: { href: `./specs/${api.id}/spec` } },
  });

  for (const own of APIS) {
    const base = own.base;
    const resolve = (id: string): ApiDescription => {
      const api = id === OWN_SPEC_ALIAS ? own : APIS.find((a) => a.id === id);
      if (!api) throw new ZitiError('NOT_FOUND', { causeMessage: `no spec with id ${id}` });
      return api;
    };

    route('GET', `${base}/specs`, 'public', async () => ({
      body: list(APIS.map(specDetail), { limit: APIS.length, offset: 0, totalCount: APIS.length }),
    }));
    route('GET', `${base}/specs/:id`, 'public', async (req) => ({ body: ok(specDetail(resolve(idParam(req.params)))) }));
    // `specBodyDetail` is a string: the document as JSON text.
    route('GET', `${base}/specs/:id/spec`, 'public', async (req) => ({ body: ok(JSON.stringify(documentOf(resolve(idParam(req.params))))) }));

    const page = docsPage(own);
    const init = initScript(own);
    const text = (body: string, contentType: string): Result => ({ body, contentType, headers: PAGE_HEADERS });
    route('GET', `${base}/docs`, 'public', async () => text(page, 'text/html; charset=utf-8'), { produces: 'text/html' });
    route('GET', `${base}/docs/openapi.json`, 'public', async () => ({ body: documentOf(own), headers: PAGE_HEADERS }), { produces: 'application/json' });
    route('GET', `${base}/docs/init.js`, 'public', async () => text(init, 'application/javascript; charset=utf-8'), { produces: 'application/javascript' });
    route(
      'GET',
      `${base}/docs/:file`,
      'public',
      async (req) => {
        const name = (req.params as { file: string }).file;
        const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
        if (!type) throw new ZitiError('NOT_FOUND', { causeMessage: `no docs file ${name}` });
        return text(await asset(name), type);
      },
      { produces: 'text/plain' },
    );
  }
}

/**
 * Response validation against the official OpenZiti Edge API specs (swagger 2.0).
 *
 * The specs are read from disk at run time (never copied into the project), parsed lazily per
 * API, and every response schema is converted to JSON Schema draft-07 and compiled lazily per
 * operation + status, then cached.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import AjvModule from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import yaml from 'js-yaml';

const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;

/** Which Edge API a request belongs to. */
export type EdgeApi = 'client' | 'management';

/** One operation of a spec: HTTP method (upper case), path template relative to the base path, operationId. */
export interface SpecOperation {
  /** HTTP method, upper case (e.g. `GET`). */
  method: string;
  /** Path template relative to the spec's `basePath`, e.g. `/identities/{id}`. */
  path: string;
  /** The spec's `operationId`, e.g. `detailIdentity`. */
  operationId: string;
}

/** Validates JSON responses against the official Edge Client and Management API specs. */
export interface SpecValidator {
  /**
   * Validates one response.
   *
   * @param api - `'client'` or `'management'`. When `path` starts with the other API's base
   *   path, the path wins. Root paths outside both base paths (`/version`,
   *   `/.well-known/est/cacerts`) are looked up relative to the base path of `api` first, then
   *   of the other API.
   * @param method - HTTP method (any case).
   * @param path - concrete request path including base path and query string,
   *   e.g. `/edge/management/v1/identities/abc123?limit=5`.
   * @param status - HTTP status code; falls back to the operation's `default` response.
   * @param body - the parsed JSON body (or the raw text for non-JSON responses).
   * @returns human-readable problems; empty when the body is valid. A missing operation or
   *   response for the status is reported as a problem too.
   */
  validate(api: EdgeApi, method: string, path: string, status: number, body: unknown): string[];
  /**
   * Like {@link SpecValidator.validate} but throws an `Error` listing the problems together with
   * the operationId and a JSON excerpt of the body. Also throws when the spec documents no
   * operation, or no response for `status`, since an undocumented response is a
   * wire-compatibility bug.
   */
  assertValid(api: EdgeApi, method: string, path: string, status: number, body: unknown): void;
  /** The operationId matched for a concrete path + method, or `undefined` when none matches. */
  operationId(api: EdgeApi, method: string, path: string): string | undefined;
  /** Every operation of a spec (method upper case, path template relative to the base path). */
  operations(api: EdgeApi): SpecOperation[];
}

/** Base paths of the two Edge APIs. */
export const EDGE_BASE_PATHS: Readonly<Record<EdgeApi, string>> = {
  client: '/edge/client/v1',
  management: '/edge/management/v1',
};

const SPEC_FILES: Record<EdgeApi, string> = { client: 'client.yml', management: 'management.yml' };
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];
const MAX_EXCERPT = 2000;

type Json = Record<string, unknown>;

interface SwaggerResponse {
  schema?: unknown;
  description?: string;
}

interface SwaggerOperation {
  operationId?: string;
  produces?: string[];
  responses?: Record<string, SwaggerResponse>;
}

interface Swagger {
  basePath?: string;
  produces?: string[];
  paths: Record<string, Record<string, SwaggerOperation | unknown>>;
  definitions?: Record<string, unknown>;
}

interface CompiledRoute {
  method: string;
  template: string;
  operationId: string;
  op: SwaggerOperation;
  /** One regex per path segment, or a literal string. */
  segments: Array<string | RegExp>;
  /** Score used to prefer literal segments over parameters. */
  literalMask: number[];
}

interface LoadedSpec {
  api: EdgeApi;
  basePath: string;
  produces: string[];
  routes: CompiledRoute[];
  ajv: InstanceType<typeof Ajv>;
  schemaId: string;
  validators: Map<string, ValidateFunction | null>;
}

interface ResolvedOperation {
  spec: LoadedSpec;
  route: CompiledRoute;
}

/** Environment variable naming the directory holding `client.yml` and `management.yml`. */
export const EDGE_SPEC_DIR_ENV = 'EDGE_SPEC_DIR';

const cache = new Map<string, SpecValidator>();

/**
 * Loads (once per directory, cached) a {@link SpecValidator} for the specs in `specDir`.
 *
 * Without `specDir`, uses env `EDGE_SPEC_DIR`, else the copy vendored in this package
 * (`spec/openziti-edge-api`). The YAML files are parsed lazily on first use.
 *
 * @throws Error when the directory lacks `client.yml`/`management.yml`.
 */
export function loadSpecValidator(specDir?: string): SpecValidator {
  const dir = resolve(specDir ?? process.env[EDGE_SPEC_DIR_ENV] ?? locateSpecDir());
  for (const file of Object.values(SPEC_FILES)) {
    if (!existsSync(join(dir, file))) {
      throw new Error(`spec directory ${dir} has no ${file}`);
    }
  }
  let validator = cache.get(dir);
  if (!validator) {
    validator = createSpecValidator(dir);
    cache.set(dir, validator);
  }
  return validator;
}

/**
 * The directory of the specs vendored with this package (`spec/openziti-edge-api`, beside
 * `src/` and `dist/`), so a fresh clone tests without anything outside the repository.
 *
 * @throws Error when it is missing.
 */
export function locateSpecDir(): string {
  const dir = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'spec', 'openziti-edge-api');
  if (!isDir(dir) || !existsSync(join(dir, SPEC_FILES.client))) {
    throw new Error(`the vendored specs are missing from ${dir}; set ${EDGE_SPEC_DIR_ENV}`);
  }
  return dir;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function createSpecValidator(dir: string): SpecValidator {
  const specs = new Map<EdgeApi, LoadedSpec>();
  const spec = (api: EdgeApi): LoadedSpec => {
    let s = specs.get(api);
    if (!s) {
      s = loadSpec(api, join(dir, SPEC_FILES[api]));
      specs.set(api, s);
    }
    return s;
  };

  /** Returns the spec + relative path candidates to try, in order. */
  const candidates = (api: EdgeApi, path: string): Array<{ spec: LoadedSpec; rel: string }> => {
    const pathname = normalisePath(path);
    const other: EdgeApi = api === 'client' ? 'management' : 'client';
    for (const a of [api, other]) {
      const base = EDGE_BASE_PATHS[a];
      if (pathname === base || pathname.startsWith(base + '/')) {
        return [{ spec: spec(a), rel: pathname.slice(base.length) || '/' }];
      }
    }
    return [
      { spec: spec(api), rel: pathname },
      { spec: spec(other), rel: pathname },
    ];
  };

  const find = (api: EdgeApi, method: string, path: string): ResolvedOperation | undefined => {
    const m = method.toUpperCase();
    for (const { spec: s, rel } of candidates(api, path)) {
      const route = matchRoute(s.routes, m, rel);
      if (route) return { spec: s, route };
    }
    return undefined;
  };

  const check = (
    api: EdgeApi,
    method: string,
    path: string,
    status: number,
    body: unknown,
  ): { problems: string[]; operationId?: string; undocumented: boolean } => {
    const found = find(api, method, path);
    if (!found) {
      const templates = candidates(api, path).flatMap(({ spec: s, rel }) =>
        s.routes.filter((r) => segmentsMatch(r, splitPath(rel))).map((r) => `${r.method} ${s.basePath}${r.template}`),
      );
      const hint = templates.length ? ` (path matches ${[...new Set(templates)].join(', ')})` : '';
      return {
        problems: [`no operation in the ${api} spec for ${method.toUpperCase()} ${normalisePath(path)}${hint}`],
        undocumented: true,
      };
    }
    const { spec: s, route } = found;
    const responses = route.op.responses ?? {};
    const key = String(status) in responses ? String(status) : 'default' in responses ? 'default' : undefined;
    if (key === undefined) {
      return {
        problems: [
          `${route.operationId}: status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`,
        ],
        operationId: route.operationId,
        undocumented: true,
      };
    }
    const produces = route.op.produces ?? s.produces;
    const nonJson = produces.some((p) => !isJsonMediaType(p));
    if (nonJson && (typeof body === 'string' || Buffer.isBuffer(body) || body instanceof Uint8Array)) {
      return { problems: [], operationId: route.operationId, undocumented: false };
    }
    const validateFn = compiledFor(s, route, key);
    if (!validateFn) return { problems: [], operationId: route.operationId, undocumented: false };
    if (validateFn(body)) return { problems: [], operationId: route.operationId, undocumented: false };
    return {
      problems: formatErrors(validateFn.errors ?? []),
      operationId: route.operationId,
      undocumented: false,
    };
  };

  return {
    validate(api, method, path, status, body) {
      return check(api, method, path, status, body).problems;
    },
    assertValid(api, method, path, status, body) {
      const { problems, operationId } = check(api, method, path, status, body);
      if (problems.length === 0) return;
      const op = operationId ? ` (${operationId})` : '';
      throw new Error(
        `response ${status} to ${method.toUpperCase()} ${path}${op} does not match the ${api} spec:\n` +
          problems.map((p) => `  - ${p}`).join('\n') +
          `\nbody: ${excerpt(body)}`,
      );
    },
    operationId(api, method, path) {
      return find(api, method, path)?.route.operationId;
    },
    operations(api) {
      return spec(api).routes.map((r) => ({ method: r.method, path: r.template, operationId: r.operationId }));
    },
  };
}

/**
 * Properties OpenZiti's controller answers with null although the spec does not mark them
 * x-nullable: go-swagger renders an unset pointer of a required field as null, and
 * controller/internal/routes/external_jwt_signer_api_model.go passes a signer's optional strings
 * through as pointers. Validated as nullable, so the controller's real answers pass.
 */
const NULL_AS_OPENZITI_ANSWERS: Record<EdgeApi, Record<string, string[]>> = {
  management: { externalJwtSignerDetail: ['externalAuthUrl', 'clientId', 'kid', 'fingerprint'] },
  client: { clientExternalJwtSignerDetail: ['externalAuthUrl'] },
};

/** Marks the listed properties of a definition (directly or in its allOf parts) x-nullable. */
function allowNull(def: unknown, names: string[]): void {
  if (!def || typeof def !== 'object') return;
  const d = def as Json;
  for (const part of [d, ...((d.allOf as unknown[] | undefined) ?? [])] as Json[]) {
    const props = part.properties as Record<string, Json> | undefined;
    for (const n of names) if (props?.[n]) props[n]['x-nullable'] = true;
  }
}

function loadSpec(api: EdgeApi, file: string): LoadedSpec {
  const doc = yaml.load(readFileSync(file, 'utf8')) as Swagger;
  if (!doc || typeof doc !== 'object' || !doc.paths) throw new Error(`${file} is not a swagger document`);
  for (const [name, props] of Object.entries(NULL_AS_OPENZITI_ANSWERS[api])) allowNull(doc.definitions?.[name], props);
  const schemaId = `https://openziti-edge-api.spec/${api}.json`;
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true, logger: false });
  addFormats(ajv, ['date-time']);
  const definitions: Json = {};
  for (const [name, def] of Object.entries(doc.definitions ?? {})) {
    definitions[name] = convertSchema(def, schemaId, false);
  }
  addDiscriminators(doc.definitions ?? {}, definitions, schemaId);
  ajv.addSchema({ $id: schemaId, definitions }, schemaId);

  const routes: CompiledRoute[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    const segs = splitPath(template);
    const segments = segs.map((seg) => (seg.includes('{') ? templateSegment(seg) : seg));
    for (const [m, op] of Object.entries(item)) {
      if (!METHODS.includes(m) || !op || typeof op !== 'object') continue;
      const operation = op as SwaggerOperation;
      routes.push({
        method: m.toUpperCase(),
        template,
        operationId: operation.operationId ?? `${m.toUpperCase()} ${template}`,
        op: operation,
        segments,
        literalMask: segments.map((s) => (typeof s === 'string' ? 1 : 0)),
      });
    }
  }
  return {
    api,
    basePath: doc.basePath ?? EDGE_BASE_PATHS[api],
    produces: doc.produces ?? ['application/json'],
    routes,
    ajv,
    schemaId,
    validators: new Map(),
  };
}

/**
 * go-swagger's polymorphism: a value of a definition with a `discriminator` is read as the
 * subtype (a definition extending it with `allOf`) that its discriminator property names by the
 * subtype's `x-class` (else its name), and must satisfy that subtype (e.g. a failed posture check
 * of type DOMAIN is a `postureCheckFailureDomain`, with `actualValue` and `expectedValue`). The
 * base becomes "the base, and for each subtype: if the property names it, that subtype"; the
 * subtypes extend a plain copy of the base (`<base>__base`). A value naming no subtype is checked
 * against the base alone.
 */
function addDiscriminators(raw: Record<string, unknown>, converted: Json, schemaId: string): void {
  const ref = (name: string) => `${schemaId}#/definitions/${name}`;
  for (const [base, def] of Object.entries(raw)) {
    const prop = (def as Json | null)?.discriminator;
    if (typeof prop !== 'string') continue;
    const plain = `${base}__base`;
    const cases: Json[] = [];
    for (const [name, sub] of Object.entries(raw)) {
      const allOf = (sub as Json | null)?.allOf;
      if (!Array.isArray(allOf) || !allOf.some((p) => (p as Json | null)?.$ref === `#/definitions/${base}`)) continue;
      const subtype = converted[name] as Json;
      subtype.allOf = (subtype.allOf as Json[]).map((p) => (p.$ref === ref(base) ? { $ref: ref(plain) } : p));
      const value = (sub as Json)['x-class'] ?? name;
      cases.push({ if: { properties: { [prop]: { const: value } }, required: [prop] }, then: { $ref: ref(name) } });
    }
    converted[plain] = converted[base];
    converted[base] = { allOf: [{ $ref: ref(plain) }, ...cases] };
  }
}

function compiledFor(spec: LoadedSpec, route: CompiledRoute, statusKey: string): ValidateFunction | null {
  const cacheKey = `${route.method} ${route.template} ${statusKey}`;
  if (spec.validators.has(cacheKey)) return spec.validators.get(cacheKey) ?? null;
  const raw = route.op.responses?.[statusKey]?.schema;
  const fn = raw === undefined ? null : spec.ajv.compile(convertSchema(raw, spec.schemaId, false) as object);
  spec.validators.set(cacheKey, fn);
  return fn;
}

/**
 * Converts a swagger 2.0 schema into a JSON Schema draft-07 schema that ajv validates like the
 * controller's go-swagger models:
 * - `#/definitions/X` refs point into the schema registered under `schemaId`;
 * - `x-nullable: true` wraps the schema as `anyOf: [schema, {type: 'null'}]`;
 * - only `date-time` formats are kept (`uri` hrefs are relative on the wire; int64 etc. are
 *   type refinements go-swagger does not check);
 * - a bare `type: object` map value (`additionalProperties: {type: object}`) is go-swagger's
 *   `interface{}` and accepts anything (a tag value is any JSON value);
 * - `readOnly`, `example` and `x-*` extensions are dropped, and so is `discriminator` (its
 *   subtypes are dispatched by addDiscriminators).
 */
function convertSchema(schema: unknown, schemaId: string, mapValue: boolean): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const s = schema as Json;
  if (
    mapValue &&
    s.type === 'object' &&
    !('properties' in s) &&
    !('additionalProperties' in s) &&
    !('allOf' in s) &&
    !('$ref' in s)
  ) {
    return {};
  }
  let out: Json = {};
  if (typeof s.$ref === 'string') {
    // In swagger 2.0 (as in draft-07) siblings of $ref are ignored, except x-nullable here.
    out.$ref = s.$ref.startsWith('#/') ? `${schemaId}${s.$ref}` : s.$ref;
  } else {
    for (const [key, value] of Object.entries(s)) {
      if (key.startsWith('x-') || value === null) continue; // e.g. `items: null` (any items)
      switch (key) {
        case 'properties': {
          const props: Json = {};
          for (const [name, prop] of Object.entries(value as Json)) props[name] = convertSchema(prop, schemaId, false);
          out.properties = props;
          break;
        }
        case 'additionalProperties':
          out.additionalProperties = typeof value === 'boolean' ? value : convertSchema(value, schemaId, true);
          break;
        case 'items':
          out.items = Array.isArray(value)
            ? value.map((v) => convertSchema(v, schemaId, false))
            : convertSchema(value, schemaId, false);
          break;
        case 'allOf':
        case 'anyOf':
        case 'oneOf':
          out[key] = (value as unknown[]).map((v) => convertSchema(v, schemaId, false));
          break;
        case 'not':
          out.not = convertSchema(value, schemaId, false);
          break;
        case 'format':
          if (value === 'date-time') out.format = value;
          break;
        case 'type':
          if (value !== 'file') out.type = value;
          break;
        case 'exclusiveMaximum':
        case 'exclusiveMinimum':
          break; // handled below (swagger 2.0 booleans)
        case 'discriminator':
        case 'readOnly':
        case 'example':
        case 'examples':
        case 'xml':
        case 'externalDocs':
          break;
        default:
          out[key] = value;
      }
    }
    if (s.exclusiveMaximum === true && typeof s.maximum === 'number') {
      out.exclusiveMaximum = s.maximum;
      delete out.maximum;
    }
    if (s.exclusiveMinimum === true && typeof s.minimum === 'number') {
      out.exclusiveMinimum = s.minimum;
      delete out.minimum;
    }
  }
  if (s['x-nullable'] === true) out = { anyOf: [out, { type: 'null' }] };
  return out;
}

function isJsonMediaType(mediaType: string): boolean {
  const base = mediaType.split(';')[0]!.trim().toLowerCase();
  return base === 'application/json' || base.endsWith('+json');
}

/** Strips query string and fragment, collapses a trailing slash. */
function normalisePath(path: string): string {
  let p = path.split('#')[0]!.split('?')[0]!;
  if (/^[a-z]+:\/\//i.test(p)) p = new URL(p).pathname;
  if (!p.startsWith('/')) p = '/' + p;
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p;
}

function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function templateSegment(seg: string): RegExp {
  const pattern = seg
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`);
}

function segmentsMatch(route: CompiledRoute, segs: string[]): boolean {
  if (route.segments.length !== segs.length) return false;
  return route.segments.every((s, i) => {
    const actual = safeDecode(segs[i]!);
    return typeof s === 'string' ? s === actual : s.test(actual);
  });
}

function safeDecode(seg: string): string {
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg;
  }
}

/** Best matching route for method + relative path: literal segments win over parameters, left to right. */
function matchRoute(routes: CompiledRoute[], method: string, rel: string): CompiledRoute | undefined {
  const segs = splitPath(rel);
  let best: CompiledRoute | undefined;
  for (const route of routes) {
    if (route.method !== method || !segmentsMatch(route, segs)) continue;
    if (!best || compareMasks(route.literalMask, best.literalMask) > 0) best = route;
  }
  return best;
}

function compareMasks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return 0;
}

function formatErrors(errors: ErrorObject[]): string[] {
  const out: string[] = [];
  for (const e of errors) {
    // The anyOf produced by x-nullable repeats the real problem; keep the inner ones.
    if (e.keyword === 'anyOf') continue;
    // A subtype's failure (addDiscriminators) comes with an `if` error that says only that.
    if (e.keyword === 'if') continue;
    if (e.keyword === 'type' && (e.params as { type?: string }).type === 'null') continue;
    const at = e.instancePath || '(root)';
    let msg = `${at} ${e.message ?? e.keyword}`;
    if (e.keyword === 'additionalProperties') {
      msg += `: '${(e.params as { additionalProperty: string }).additionalProperty}'`;
    } else if (e.keyword === 'enum') {
      msg += `: ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}`;
    }
    if (!out.includes(msg)) out.push(msg);
  }
  if (out.length === 0 && errors.length > 0) {
    for (const e of errors) out.push(`${e.instancePath || '(root)'} ${e.message ?? e.keyword}`);
  }
  return out;
}

function excerpt(body: unknown): string {
  let text: string;
  try {
    text = typeof body === 'string' ? body : (JSON.stringify(body, null, 2) ?? String(body));
  } catch {
    text = String(body);
  }
  return text.length > MAX_EXCERPT ? `${text.slice(0, MAX_EXCERPT)}… (${text.length} chars)` : text;
}

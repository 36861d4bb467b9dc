/**
 * JSON schemas of config types, and validation of config data against them (ajv). OpenZiti
 * validates with gojsonschema (controller/model/config_model.go); the built-in schemas use
 * draft-07 keywords and the formats below.
 */
import AjvModule from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { fieldError } from '@edge/errors';
import type { Json } from './entity.js';

const Ajv = AjvModule.default;
type Ajv = InstanceType<typeof Ajv>;
const addFormats = addFormatsModule.default;

/**
 * `idn-hostname` as the built-in intercept schemas use it: any non-blank name of labels of at
 * most 63 characters (IPs, CIDRs and wildcards included, see the schema's own description).
 */
function idnHostname(value: string): boolean {
  if (value.length === 0 || value.length > 253 || /\s/.test(value)) return false;
  return value.split('.').every((label) => label.length <= 63);
}

function createAjv(): Ajv {
  // addUsedSchema: false, so schemas sharing an $id (a type and its copy) never collide.
  const ajv = new Ajv({ strict: false, allErrors: false, addUsedSchema: false, validateSchema: true });
  addFormats(ajv);
  ajv.addFormat('idn-hostname', idnHostname);
  return ajv;
}

const ajv = createAjv();
const cache = new Map<string, ValidateFunction>();
const MAX_CACHED = 1000;

function compile(schema: Json): ValidateFunction {
  const key = JSON.stringify(schema);
  let fn = cache.get(key);
  if (!fn) {
    fn = ajv.compile(schema);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(key, fn);
  }
  return fn;
}

/** Checks that `schema` is a JSON schema a config can be validated against; else a 400 on `schema`. */
export function checkSchema(schema: Json): void {
  try {
    compile(schema);
  } catch (err) {
    throw fieldError('schema', `is not a valid JSON schema: ${(err as Error).message}`, schema);
  }
}

/** The dotted path of the first error, e.g. `data.portRanges.0.low`, or `data.port` when `port` is missing. */
function errorPath(e: ErrorObject): string {
  const parts = e.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required') parts.push(String((e.params as { missingProperty: string }).missingProperty));
  if (e.keyword === 'additionalProperties') parts.push(String((e.params as { additionalProperty: string }).additionalProperty));
  return ['data', ...parts].join('.');
}

function valueAt(data: unknown, instancePath: string): unknown {
  let v = data;
  for (const p of instancePath.split('/').slice(1)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[p.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return v;
}

/** Validates config data against its type's schema; the first failure is a 400 naming its path. */
export function validateConfigData(schema: Json, data: Json): void {
  let fn: ValidateFunction;
  try {
    fn = compile(schema);
  } catch (err) {
    throw fieldError('data', `the config type's schema cannot be used: ${(err as Error).message}`, null);
  }
  if (fn(data)) return;
  const first = fn.errors![0]!;
  throw fieldError(errorPath(first), first.message ?? 'is not valid', valueAt(data, first.instancePath));
}

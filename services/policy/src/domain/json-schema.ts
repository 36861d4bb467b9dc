/**
 * JSON schemas of config types, and validation of config data against them (ajv). OpenZiti
 * validates with gojsonschema (controller/model/config_model.go); the built-in schemas use
 * draft-07 keywords and the formats below. `pattern` and `patternProperties` run on RE2 (as
 * gojsonschema runs them on Go's regexp): matching takes time linear in the input, so a pattern
 * such as `^(a+)+$` cannot hold the service, and a pattern RE2 does not support (lookaround,
 * backreferences) is refused when the config type is written. `uniqueItems` takes time linear in
 * the array too (see {@link duplicateOf}).
 */
import AjvModule from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { RE2JS } from 're2js';
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

/** ajv's pattern constructor: RE2 semantics, unanchored search as JSON schema's `pattern`. */
const re2 = Object.assign((pattern: string) => RE2JS.compile(pattern), { code: 'RE2JS.compile' });

/** A value's text with each object's keys in order: two values JSON schema calls equal have the same. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * The duplicate ajv's own `uniqueItems` reports (the last item equal to an earlier one, and the
 * last such earlier one), found in one pass. ajv compares every pair of items whose schema names
 * no scalar type, as the built-in intercept schemas' `inhabitedSet` does: a config of 30,000
 * addresses held the policy service for seconds, and the time grew with the square of the count.
 */
export function duplicateOf(items: readonly unknown[]): { i: number; j: number } | undefined {
  const last = new Map<string, number>();
  let found: { i: number; j: number } | undefined;
  items.forEach((item, i) => {
    const key = canonical(item);
    const j = last.get(key);
    if (j !== undefined) found = { i, j };
    last.set(key, i);
  });
  return found;
}

/** `uniqueItems` through {@link duplicateOf}, with ajv's own error. */
function uniqueItems(unique: boolean, data: unknown[]): boolean {
  const dup = unique ? duplicateOf(data) : undefined;
  if (!dup) return true;
  uniqueItems.errors = [{ keyword: 'uniqueItems', params: dup, message: `must NOT have duplicate items (items ## ${dup.j} and ${dup.i} are identical)` }];
  return false;
}
uniqueItems.errors = [] as Array<Partial<ErrorObject>>;

function createAjv(): Ajv {
  // addUsedSchema: false, so schemas sharing an $id (a type and its copy) never collide.
  const ajv = new Ajv({ strict: false, allErrors: false, addUsedSchema: false, validateSchema: true, code: { regExp: re2 } });
  addFormats(ajv);
  ajv.addFormat('idn-hostname', idnHostname);
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate: uniqueItems });
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

/**
 * Why a schema cannot be compiled: ajv's own reason, or, when its code generation ran out of
 * stack (thousands of properties, or nesting as deep), that the schema is too large.
 */
const compileFailure = (err: unknown) => (err instanceof RangeError ? 'is too large or too deeply nested to be compiled' : (err as Error).message);

/** Checks that `schema` is a JSON schema a config can be validated against; else a 400 on `schema`. */
export function checkSchema(schema: Json): void {
  try {
    compile(schema);
  } catch (err) {
    throw fieldError('schema', err instanceof RangeError ? compileFailure(err) : `is not a valid JSON schema: ${compileFailure(err)}`, schema);
  }
}

/** The segments of a JSON pointer. */
function pathParts(pointer: string): string[] {
  return pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * Where an error is, named as gojsonschema names it (OpenZiti's cause.field): the dotted path of
 * the failing value inside the data, `(root)` for the data itself; a missing or an unexpected
 * property is an error of the object holding it (tests/config_test.go expects `(root)`).
 */
function errorField(e: ErrorObject): string {
  const parts = pathParts(e.instancePath);
  return parts.length === 0 ? '(root)' : parts.join('.');
}

function errorReason(e: ErrorObject): string {
  if (e.keyword === 'required') return `${(e.params as { missingProperty: string }).missingProperty} is required`;
  if (e.keyword === 'additionalProperties') return `Additional property ${(e.params as { additionalProperty: string }).additionalProperty} is not allowed`;
  return e.message ?? 'is not valid';
}

function valueAt(data: unknown, instancePath: string): unknown {
  let v = data;
  for (const p of pathParts(instancePath)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[p];
  }
  return v;
}

/** Validates config data against its type's schema; the first failure is a 400 naming where it is. */
export function validateConfigData(schema: Json, data: Json): void {
  let fn: ValidateFunction;
  try {
    fn = compile(schema);
  } catch (err) {
    throw fieldError('data', `the config type's schema cannot be used: ${compileFailure(err)}`, null);
  }
  if (fn(data)) return;
  const first = fn.errors![0]!;
  throw fieldError(errorField(first), errorReason(first), valueAt(data, first.instancePath));
}

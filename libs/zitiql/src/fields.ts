/**
 * The allow-list a filter is checked and compiled against: each filterable field of a resource,
 * its type and the SQL that reads it. Declared by the service that owns the table, next to its
 * store; nothing outside this map is reachable from a filter.
 */
import { sql, type Expression } from 'kysely';

/**
 * `string`, `number`, `bool`, `datetime`: scalar columns. `set`: a `text[]` column, read
 * through anyOf/allOf/count/isEmpty. `map`: a `jsonb` object whose keys are addressed as
 * `<field>.<key>` (e.g. `tags.env`) and may hold any JSON value.
 */
export type FieldType = 'string' | 'number' | 'bool' | 'datetime' | 'set' | 'map';

/** One filterable field. */
export interface FieldDef {
  type: FieldType;
  /** The SQL reading the field on the listed row; written by the service, never from input. */
  expr: Expression<unknown>;
  /** The column may hold NULL; predicates are then made two-valued as OpenZiti's are. */
  nullable: boolean;
  /** Whether `sort by` accepts the field (scalars and map keys by default). */
  sortable: boolean;
}

/** The fields of one resource, by their OpenZiti (JSON) names. */
export type FieldMap = Readonly<Record<string, FieldDef>>;

/** Options of a field declaration. */
export interface FieldOptions {
  nullable?: boolean;
  sortable?: boolean;
}

function define(type: FieldType) {
  return (column: string | Expression<unknown>, options: FieldOptions = {}): FieldDef => ({
    type,
    expr: typeof column === 'string' ? sql.ref(column) : column,
    nullable: options.nullable ?? false,
    sortable: options.sortable ?? type !== 'set',
  });
}

/** Field declarations by type: `field.string('name')`, `field.set('role_attributes')`, ... */
export const field = {
  string: define('string'),
  number: define('number'),
  bool: define('bool'),
  datetime: define('datetime'),
  set: define('set'),
  map: define('map'),
};

/** The names a list advertises in `meta.filterableFields`. */
export function filterableFields(fields: FieldMap): string[] {
  return Object.keys(fields);
}

/** A field resolved from a filter identifier; `key` is set for `<map>.<key>`. */
export interface ResolvedField {
  name: string;
  def: FieldDef;
  key?: string;
}

/** Resolves an identifier against the map, or returns undefined. */
export function resolveField(fields: FieldMap, name: string): ResolvedField | undefined {
  const def = Object.hasOwn(fields, name) ? fields[name] : undefined;
  if (def) return { name, def };
  const dot = name.indexOf('.');
  if (dot <= 0) return undefined;
  const base = name.slice(0, dot);
  const mapDef = Object.hasOwn(fields, base) ? fields[base] : undefined;
  if (mapDef?.type !== 'map') return undefined;
  return { name: base, def: mapDef, key: name.slice(dot + 1) };
}

/**
 * The fields every entity has (OpenZiti's baseEntity: id, createdAt, updatedAt, tags) over the
 * conventional columns id, created_at, updated_at and tags, plus `name` when `named`.
 */
export function entityFields(options: { named?: boolean } = {}): Record<string, FieldDef> {
  return {
    id: field.string('id'),
    ...(options.named ? { name: field.string('name') } : {}),
    createdAt: field.datetime('created_at'),
    updatedAt: field.datetime('updated_at'),
    tags: field.map('tags'),
  };
}

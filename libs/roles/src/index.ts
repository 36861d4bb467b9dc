/**
 * Role lists, as OpenZiti policies and role filters use them: `#attr` selects the entities
 * having that role attribute, `@id` (or `@name`) one entity, `#all` (alone) every entity.
 * `AllOf` (the default) requires every listed attribute, `AnyOf` any of them; entities named
 * with `@` are selected either way (as controller/db/policy_common.go in OpenZiti).
 * Matching compiles to SQL over a `text[]` attribute column, which a GIN index serves.
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import { fieldError } from '@edge/errors';
import { field, listMeta, listParams, planList, UNBOUNDED, type FieldMap, type ListPlan, type ListQueryMessage } from '@edge/zitiql';

export type RoleSemantic = 'AllOf' | 'AnyOf';

/** A parsed role list. */
export interface Roles {
  all: boolean;
  attributes: string[];
  ids: string[];
}

/** The SQL reading an entity's attributes, id and (optionally) name. */
export interface RoleColumns {
  attributes: Expression<unknown>;
  id: Expression<unknown>;
  name?: Expression<unknown>;
}

/** Reads a semantic; empty means `AllOf`. Anything else is a 400 on `field`. */
export function parseSemantic(raw: string | undefined, field = 'semantic'): RoleSemantic {
  if (raw === undefined || raw === '') return 'AllOf';
  if (raw === 'AllOf' || raw === 'AnyOf') return raw;
  throw fieldError(field, 'must be AllOf or AnyOf', raw);
}

/** Parses a role list; a role without `#` or `@`, an empty one, or `#all` with others is a 400 on `field`. */
export function parseRoles(values: readonly string[], field: string): Roles {
  const roles: Roles = { all: false, attributes: [], ids: [] };
  values.forEach((role, i) => {
    const name = role.slice(1);
    if (role.startsWith('#') && name !== '') {
      if (name === 'all') roles.all = true;
      else roles.attributes.push(name);
    } else if (role.startsWith('@') && name !== '') {
      roles.ids.push(name);
    } else {
      throw fieldError(`${field}[${i}]`, 'a role must be #<attribute>, @<id> or #all', role);
    }
  });
  if (roles.all && values.length > 1) throw fieldError(field, '#all cannot be combined with other roles', values);
  return roles;
}

/** The condition selecting the entities a role list matches under a semantic. */
export function roleCondition(roles: Roles, semantic: RoleSemantic, cols: RoleColumns): Expression<SqlBool> {
  if (roles.all) return sql<SqlBool>`true`;
  const terms: Expression<SqlBool>[] = [];
  if (roles.attributes.length > 0) {
    const wanted = sql`array[${sql.join(roles.attributes.map((a) => sql`${a}::text`))}]`;
    terms.push(sql<SqlBool>`(${cols.attributes} ${sql.raw(semantic === 'AllOf' ? '@>' : '&&')} ${wanted})`);
  }
  if (roles.ids.length > 0) {
    const ids = sql.join(roles.ids.map((r) => sql`${r}::text`));
    terms.push(sql<SqlBool>`(${cols.id} in (${ids}))`);
    if (cols.name) terms.push(sql<SqlBool>`(${cols.name} in (${ids}))`);
  }
  if (terms.length === 0) return sql<SqlBool>`false`;
  return sql<SqlBool>`(${sql.join(terms, sql` or `)})`;
}

/** A list's `roleFilter`/`roleSemantic` parameters, as they travel between services. */
export interface RoleFilterParams {
  roleFilter: readonly string[];
  roleSemantic: string;
}

/** The condition of a list's role filter, or undefined when the request has none. */
export function roleFilterCondition(params: RoleFilterParams | null | undefined, cols: RoleColumns): Expression<SqlBool> | undefined {
  if (!params || params.roleFilter.length === 0) return undefined;
  return roleCondition(parseRoles(params.roleFilter, 'roleFilter'), parseSemantic(params.roleSemantic, 'roleSemantic'), cols);
}

/** What a filter on a role attribute list (`/identity-role-attributes`, ...) may read: the attribute, as `id`. */
export const ROLE_ATTRIBUTE_FIELDS: FieldMap = { id: field.string('id') };

/** The condition of a "which entities match these roles" request (`MatchIdentities`, ...). */
export function matchRolesCondition(req: { roles: readonly string[]; semantic: string }, cols: RoleColumns): Expression<SqlBool> {
  return roleCondition(parseRoles(req.roles, 'roles'), parseSemantic(req.semantic), cols);
}

/**
 * The plan of a role attribute list request. As OpenZiti's controller, only the filter pages and
 * orders these lists: a `limit` and `skip` in it (every attribute without a limit), a `sort by`
 * (by `id` otherwise). The `limit`, `offset` and `sort` parameters are not read: the API declares
 * the first two, the admin console sends a sort and asks with no limit for every attribute.
 */
function roleAttributesPlan(query: ListQueryMessage | null | undefined): ListPlan {
  return planList(ROLE_ATTRIBUTE_FIELDS, { filter: listParams(query).filter }, { defaultSort: 'id', unbounded: true });
}

/**
 * Answers a role attribute list request through the owner's `list` query. A page the filter did
 * not bound says its own length as its limit (OpenZiti says 2^63-1, which neither a 32-bit list
 * meta nor a JavaScript number carries).
 */
export async function roleAttributesAnswer(query: ListQueryMessage | null | undefined, list: (plan: ListPlan) => Promise<{ items: string[]; total: number }>) {
  const plan = roleAttributesPlan(query);
  const { items, total } = await list(plan);
  const meta = listMeta(plan, total, ROLE_ATTRIBUTE_FIELDS);
  return { items, meta: plan.limit === UNBOUNDED ? { ...meta, limit: items.length } : meta };
}

/** One policy's role list and semantic, as other services pass them. */
export interface RoleSelection {
  roles: readonly string[];
  semantic: string;
}

/**
 * The entities any of several role lists select (the union over policies), or undefined when
 * no restriction was asked for; an empty set of selections selects nothing.
 */
export function selectedByCondition(selected: { selections: readonly RoleSelection[] } | null | undefined, cols: RoleColumns): Expression<SqlBool> | undefined {
  if (!selected) return undefined;
  if (selected.selections.length === 0) return sql<SqlBool>`false`;
  return sql<SqlBool>`(${sql.join(selected.selections.map((s) => matchRolesCondition(s, cols)), sql` or `)})`;
}

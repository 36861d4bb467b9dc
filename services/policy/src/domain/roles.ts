/**
 * Role lists of policies: validated with the shared parser, stored as given and split into
 * attributes, ids and `#all` for matching. `@name` refers to an entity by name; it is stored
 * as `@<id>` once resolved, so a rename keeps the policy pointing at the same entity.
 */
import { fieldError } from '@edge/errors';
import { parseRoles, type RoleSemantic, type Roles } from '@edge/roles';

/** How a role list matches: `all`, or entities with the attributes (per semantic), or by id. */
export interface RoleSplit {
  all: boolean;
  attrs: string[];
  ids: string[];
}

/** Splits a role list that has already been validated and resolved. */
export function splitRoles(roles: readonly string[]): RoleSplit {
  const r: Roles = parseRoles(roles, 'roles');
  return { all: r.all, attrs: r.attributes, ids: r.ids };
}

/** A role list and its policy's semantic, as the identity service matches them. */
export interface RoleSelection {
  roles: string[];
  semantic: string;
}

/** An entity an `@` role may name. */
export interface NamedEntity {
  id: string;
  name: string;
}

/**
 * Validates a role list on `field` and rewrites `@name` to `@id` using the entities found for
 * its `@` references; a reference naming nothing is a 400 on `field`.
 */
export function resolveRoles(roles: readonly string[], field: string, found: readonly NamedEntity[]): string[] {
  parseRoles(roles, field);
  const byId = new Map(found.map((e) => [e.id, e]));
  const byName = new Map(found.map((e) => [e.name, e]));
  return roles.map((role, i) => {
    if (!role.startsWith('@')) return role;
    const ref = role.slice(1);
    const entity = byId.get(ref) ?? byName.get(ref);
    if (!entity) throw fieldError(`${field}[${i}]`, `no entity found with id or name ${ref}`, role);
    return `@${entity.id}`;
  });
}

/** The `@` references of a role list (without the `@`). */
export function refsOf(roles: readonly string[]): string[] {
  return roles.filter((r) => r.startsWith('@') && r.length > 1).map((r) => r.slice(1));
}

/**
 * `{role, name}` for each role, as GetNamedIdentityRoles in controller/internal/routes: `#attr`
 * names itself, `@id` is shown as `@<name>`; an `@id` naming no entity is left out.
 */
export function displayRoles(roles: readonly string[], names: ReadonlyMap<string, string>): Array<{ role: string; name: string }> {
  return roles.flatMap((role) => {
    if (!role.startsWith('@')) return [{ role, name: role }];
    const name = names.get(role.slice(1));
    return name === undefined ? [] : [{ role, name: `@${name}` }];
  });
}

export type { RoleSemantic };

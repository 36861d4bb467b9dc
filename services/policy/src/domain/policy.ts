/**
 * The three policy kinds (controller/db/policy_common.go in OpenZiti): service policies
 * (identities × services, Dial or Bind, with posture checks), edge router policies
 * (identities × edge routers) and service edge router policies (services × edge routers).
 */
import { fieldError } from '@edge/errors';
import { parseRoles, parseSemantic, type RoleSemantic } from '@edge/roles';
import { checkName, type Json, type Stored } from './entity.js';

/** The entity kinds a role list can select, by the field holding it. */
export type RoleField = 'identityRoles' | 'serviceRoles' | 'postureCheckRoles' | 'edgeRouterRoles';

/** The writable fields of any policy: role lists keyed by field, plus the kind's own fields. */
export interface PolicyInput {
  name: string;
  semantic: RoleSemantic;
  roles: Partial<Record<RoleField, string[]>>;
  /** Service policies only. */
  type?: 'Dial' | 'Bind';
  tags: Json;
}

export interface Policy extends PolicyInput, Stored {
  /** Edge router policies only (system policies are created per router). */
  isSystem?: boolean;
}

/** What distinguishes the kinds: their role fields, whether they have a type, their names. */
export interface PolicyKind {
  /** Entity name in messages (`service policy`). */
  entity: string;
  /** Subject name (`service-policy`). */
  subject: 'service-policy' | 'edge-router-policy' | 'service-edge-router-policy';
  roleFields: readonly RoleField[];
  typed: boolean;
}

export const SERVICE_POLICY: PolicyKind = { entity: 'service policy', subject: 'service-policy', roleFields: ['identityRoles', 'serviceRoles', 'postureCheckRoles'], typed: true };
export const EDGE_ROUTER_POLICY: PolicyKind = { entity: 'edge router policy', subject: 'edge-router-policy', roleFields: ['identityRoles', 'edgeRouterRoles'], typed: false };
export const SERVICE_EDGE_ROUTER_POLICY: PolicyKind = { entity: 'service edge router policy', subject: 'service-edge-router-policy', roleFields: ['serviceRoles', 'edgeRouterRoles'], typed: false };

/** JSON name → input path, for update masks. */
export function policyMaskKeys(kind: PolicyKind): string[] {
  return ['name', 'semantic', 'tags', ...kind.roleFields, ...(kind.typed ? ['type'] : [])];
}

/** Applies an update mask to a policy. */
export function applyPolicyMask(kind: PolicyKind, current: PolicyInput, next: PolicyInput, mask: readonly string[]): PolicyInput {
  const allowed = new Set(policyMaskKeys(kind));
  const out: PolicyInput = { ...current, roles: { ...current.roles } };
  for (const name of mask) {
    if (!allowed.has(name)) throw fieldError(name, 'is not a writable field', name);
    if ((kind.roleFields as readonly string[]).includes(name)) out.roles[name as RoleField] = next.roles[name as RoleField] ?? [];
    else (out as unknown as Record<string, unknown>)[name] = (next as unknown as Record<string, unknown>)[name];
  }
  return out;
}

/** Reads a service policy type; anything but Dial or Bind is a 400 on `type`. */
export function parsePolicyType(raw: string): 'Dial' | 'Bind' {
  if (raw === 'Dial' || raw === 'Bind') return raw;
  throw fieldError('type', 'must be Dial or Bind', raw);
}

/** Validates a policy's fields; each role list must be `#attr`, `@id` or `#all` alone. */
export function validatePolicy(kind: PolicyKind, input: PolicyInput): void {
  checkName(input.name);
  parseSemantic(input.semantic, 'semantic');
  if (kind.typed) parsePolicyType(input.type ?? '');
  for (const f of kind.roleFields) parseRoles(input.roles[f] ?? [], f);
}

/**
 * Identity permissions on the Management API, as OpenZiti grants them (controller/permissions/*.go):
 * besides admins, an identity may hold `admin_readonly` (every read), an entity type (`service`:
 * every operation on services) or an entity action (`service.read`). Each management route acts on
 * one entity type with one action, as each of OpenZiti's routers declares with
 * InitPermissionsContext (controller/internal/routes/*_router.go); here that is derived from the
 * route's path and method, with the exceptions OpenZiti makes spelled out below.
 */

/** What a route does, for the permission check. */
export type Action = 'read' | 'create' | 'update' | 'delete';

/** How a management route is guarded. */
export type RouteRule =
  /** DefaultManagementAccess: admin, admin_readonly for reads, the entity or the entity action. */
  | { kind: 'entity'; entity: string; action: Action }
  /** IsAdmin: admins only (database, summary, controller settings, authenticator changes). */
  | { kind: 'admin' }
  /** admin or admin_readonly, reads only (authenticator lists, as authenticator_router.go). */
  | { kind: 'admin-readonly' }
  /** IsAuthenticated: any fully authenticated session (identity and posture check types). */
  | { kind: 'authenticated' };

/** Every value an identity's `permissions` may hold (permissions.go AllPermissions). */
export const PERMISSIONS: ReadonlySet<string> = new Set([
  'admin_readonly',
  ...entityPermissions('auth-policy', 'ca', 'config', 'config-type', 'edge-router-policy', 'enrollment', 'external-jwt-signer', 'identity',
    'posture-check', 'router', 'service', 'service-edge-router-policy', 'service-policy', 'terminator'),
  'controllers', 'controllers.read',
  'ops', 'ops.read', 'ops.update', 'ops.delete',
]);

function entityPermissions(...entities: string[]): string[] {
  return entities.flatMap((e) => [e, `${e}.read`, `${e}.create`, `${e}.update`, `${e}.delete`]);
}

/** The entity type of each management collection (the path's first segment). */
const ENTITY_OF: Record<string, string> = {
  'api-sessions': 'ops',
  'auth-policies': 'auth-policy',
  authenticators: 'authenticator',
  cas: 'ca',
  'config-types': 'config-type',
  configs: 'config',
  controllers: 'controllers',
  'edge-router-policies': 'edge-router-policy',
  'edge-routers': 'router',
  enrollments: 'enrollment',
  'external-jwt-signers': 'external-jwt-signer',
  identities: 'identity',
  'posture-checks': 'posture-check',
  revocations: 'revocation',
  routers: 'router',
  'service-edge-router-policies': 'service-edge-router-policy',
  'service-policies': 'service-policy',
  services: 'service',
  sessions: 'ops',
  terminators: 'terminator',
  'transit-routers': 'router',
  'edge-router-role-attributes': 'router',
  'identity-role-attributes': 'identity',
  'posture-check-role-attributes': 'posture-check',
  'service-role-attributes': 'service',
};

/** Collections only admins reach (IsAdmin in OpenZiti). */
const ADMIN_ONLY = new Set(['database', 'summary', 'controller-settings']);
/** Collections any fully authenticated session may read (IsAuthenticated in OpenZiti). */
const AUTHENTICATED = new Set(['identity-types', 'posture-check-types']);

/**
 * Sub-resources that belong to their parent rather than naming another entity type:
 * `identities/{id}/service-configs` is identity data, `/mfa` and `/trace` change the identity.
 */
const OWN_SUB_RESOURCES = new Set(['service-configs', 'posture-data', 'failed-service-requests', 'mfa', 'trace', 'jwt', 'route-path']);

/** The action of a method on a path: GET reads, POST on a collection creates, anything else on an entity updates it. */
function actionOf(method: string, segments: string[]): Action {
  if (method === 'GET') return 'read';
  if (method === 'DELETE') return segments.length === 2 ? 'delete' : 'update';
  if (method === 'POST' && segments.length === 1) return 'create';
  return 'update';
}

/**
 * The rule of a management route, from its path under the base (`identities/:id/service-policies`)
 * and method. Undefined for a collection nobody has mapped yet, which only admins may then use.
 */
export function routeRule(method: string, path: string): RouteRule | undefined {
  const segments = path.split('/').filter((s) => s !== '');
  const [collection = '', , sub] = segments;
  if (ADMIN_ONLY.has(collection)) return { kind: 'admin' };
  if (AUTHENTICATED.has(collection)) return { kind: 'authenticated' };
  const action = actionOf(method, segments);
  if (collection === 'authenticators') return action === 'read' ? { kind: 'admin-readonly' } : { kind: 'admin' };
  const own = ENTITY_OF[collection];
  if (!own) return undefined;
  // a list of related entities is a read of those (identity_router.go listServicePolicies: service-policy)
  if (method === 'GET' && sub !== undefined && !OWN_SUB_RESOURCES.has(sub)) {
    if (sub === 'policy-advice') return { kind: 'entity', entity: 'service', action };
    const related = ENTITY_OF[sub];
    if (related) return { kind: 'entity', entity: related, action };
  }
  return { kind: 'entity', entity: own, action };
}

/** Who is asking: an admin, or an identity with these permissions. */
export interface Grants {
  isAdmin: boolean;
  permissions: readonly string[];
}

/** Whether the grants pass a rule (permissions/management.go, is_admin.go, has_readonly_access.go, …). */
export function permits(grants: Grants, rule: RouteRule | undefined): boolean {
  if (grants.isAdmin) return true;
  if (!rule || rule.kind === 'admin') return false;
  if (rule.kind === 'authenticated') return true;
  const held = new Set(grants.permissions);
  const readOnly = held.has('admin_readonly');
  if (rule.kind === 'admin-readonly') return readOnly;
  if (rule.action === 'read' && readOnly) return true;
  return held.has(rule.entity) || held.has(`${rule.entity}.${rule.action}`);
}

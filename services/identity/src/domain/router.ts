/**
 * Edge and transit router rules that do not depend on storage or transport.
 */
import { fieldError } from '@edge/errors';
import type { Json } from './identity.js';

export type RouterKind = 'edge' | 'transit';

/** The writable fields of a router. Transit routers use only name, cost, noTraversal, disabled, tags. */
export interface RouterInput {
  name: string;
  roleAttributes: string[];
  tags: Json;
  appData: Json;
  cost: number;
  noTraversal: boolean;
  disabled: boolean;
  isTunnelerEnabled: boolean;
  /** Listener address → the groups it serves. */
  ctrlChanListeners: Record<string, string[]>;
  /** Ids of configs of router-targeted types (the policy service checks them). */
  configs: string[];
}

/** A stored router. */
export interface Router extends RouterInput {
  id: string;
  kind: RouterKind;
  isVerified: boolean;
  fingerprint: string | null;
  certPem: string | null;
  unverifiedFingerprint: string | null;
  unverifiedCertPem: string | null;
  hostname: string;
  supportedProtocols: Json;
  createdAt: Date;
  updatedAt: Date;
}

/** JSON names of the writable fields; an update mask names a subset of these. */
export const ROUTER_FIELDS = ['name', 'roleAttributes', 'tags', 'appData', 'cost', 'noTraversal', 'disabled', 'isTunnelerEnabled', 'ctrlChanListeners', 'configs'] as const;

/** Reads a kind; anything else is a caller bug, answered as a validation error. */
export function routerKind(kind: string): RouterKind {
  if (kind === 'edge' || kind === 'transit') return kind;
  throw fieldError('kind', 'must be edge or transit', kind);
}

/** Validates what zod at the edge cannot know. */
export function validateRouterInput(input: RouterInput): void {
  if (!input.name.trim()) throw fieldError('name', 'must not be empty', input.name);
  if (!Number.isInteger(input.cost) || input.cost < 0 || input.cost > 65535) throw fieldError('cost', 'must be an integer from 0 to 65535', input.cost);
  for (const attr of input.roleAttributes) {
    if (attr.startsWith('#') || attr.startsWith('@')) throw fieldError('roleAttributes', 'role attributes may not start with # or @', attr);
  }
}

/** Applies an update mask: the fields named take the new values, the rest stay. */
export function applyRouterUpdate(current: Router, next: RouterInput, mask: readonly string[]): RouterInput {
  const out: RouterInput = { ...current };
  for (const field of mask) {
    if (!(ROUTER_FIELDS as readonly string[]).includes(field)) throw fieldError(field, 'is not a writable field', field);
    (out as unknown as Record<string, unknown>)[field] = next[field as keyof RouterInput];
  }
  return out;
}

/**
 * The identity a tunneler-enabled edge router hosts and dials through: same id and name, type
 * Router (as controller/model/edge_router_manager.go in OpenZiti), or none.
 */
export function routerIdentityWanted(router: Pick<Router, 'kind' | 'isTunnelerEnabled'>): boolean {
  return router.kind === 'edge' && router.isTunnelerEnabled;
}

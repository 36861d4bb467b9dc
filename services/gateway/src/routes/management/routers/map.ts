/**
 * HTTP bodies → router proto messages, and router messages → `edgeRouterDetail`/`routerDetail`.
 */
import { selfLink } from '@edge/envelope';
import { baseEntity, withFields } from '../../shared/entity.js';
import type { identity, pki } from '@edge/proto';
import { enrollmentsByOwner, renderRouterEnrollment } from '../../shared/enrollments.js';
import type { Clients } from '../../../clients.js';
import type { RouterBody } from './schemas.js';

/** Every writable field, in the names the identity service's update mask uses. */
export const ALL_EDGE_FIELDS = ['name', 'roleAttributes', 'tags', 'appData', 'cost', 'noTraversal', 'disabled', 'isTunnelerEnabled', 'ctrlChanListeners', 'configs'];
export const ALL_TRANSIT_FIELDS = ['name', 'tags', 'cost', 'noTraversal', 'disabled', 'ctrlChanListeners', 'configs'];

/** The RouterFields of a create, replace or patch body. */
export function toRouterFields(b: RouterBody): identity.RouterFields {
  return {
    name: b.name ?? '',
    roleAttributes: b.roleAttributes ?? [],
    tagsJson: JSON.stringify(b.tags ?? {}),
    appDataJson: JSON.stringify(b.appData ?? {}),
    cost: b.cost ?? 0,
    noTraversal: b.noTraversal ?? false,
    disabled: b.disabled ?? false,
    isTunnelerEnabled: b.isTunnelerEnabled ?? false,
    ctrlChanListeners: Object.fromEntries(Object.entries(b.ctrlChanListeners ?? {}).map(([address, groups]) => [address, { groups }])),
    configs: b.configs ?? [],
  };
}

/** The fields a PATCH changes: those present in the body (a null name leaves it). */
export function routerPatchMask(body: Record<string, unknown>, all: string[]): string[] {
  return all.filter((f) => f in body && !(body[f] === null && f === 'name'));
}

const json = (text: string) => JSON.parse(text || '{}') as Record<string, unknown>;

/** Fields shared by `routerDetail` and `edgeRouterDetail`; `enrollment` is the router's outstanding one. */
function common(r: identity.Router__Output, collection: string, enrollment: pki.Enrollment__Output | undefined) {
  return {
    id: r.id,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    tags: json(r.tagsJson),
    name: r.name,
    cost: r.cost,
    noTraversal: r.noTraversal,
    disabled: r.disabled,
    isOnline: false,
    isVerified: r.isVerified,
    fingerprint: r.fingerprint ?? '',
    unverifiedCertPem: r.unverifiedCertPem ?? null,
    unverifiedFingerprint: r.unverifiedFingerprint ?? null,
    ctrlChanListeners: Object.fromEntries(Object.entries(r.ctrlChanListeners).map(([address, g]) => [address, g.groups])),
    configs: r.configs,
    interfaces: [] as unknown[],
    ...renderRouterEnrollment(enrollment),
    _links: selfLink(collection, r.id),
  };
}

/** `routerDetail` of a transit router. */
export function renderTransitRouter(r: identity.Router__Output, enrollment?: pki.Enrollment__Output) {
  return common(r, 'transit-routers', enrollment);
}

/**
 * `edgeRouterDetail`. The spec also requires the version fields at the top level; a router
 * that has never connected reports them empty.
 */
export function renderEdgeRouter(r: identity.Router__Output, enrollment?: pki.Enrollment__Output) {
  const base = common(r, 'edge-routers', enrollment);
  const nested = (name: string) => ({ href: `./edge-routers/${r.id}/${name}` });
  return {
    ...base,
    _links: { ...base._links, 'edge-router-policies': nested('edge-router-policies'), 'service-edge-router-policies': nested('service-edge-router-policies') },
    appData: json(r.appDataJson),
    roleAttributes: r.roleAttributes,
    isTunnelerEnabled: r.isTunnelerEnabled,
    hostname: r.hostname,
    supportedProtocols: r.supportedProtocols,
    syncStatus: 'SYNC_UNKNOWN',
    certPem: r.certPem ?? null,
    os: '',
    arch: '',
    version: '',
    buildDate: '',
    revision: '',
  };
}

/** `commonEdgeRouterProperties`: an edge router as a client sees it. */
export function renderCommonEdgeRouter(r: identity.Router__Output) {
  return {
    name: r.name,
    appData: json(r.appDataJson),
    cost: r.cost,
    disabled: r.disabled,
    hostname: r.hostname,
    isOnline: false,
    noTraversal: r.noTraversal,
    supportedProtocols: r.supportedProtocols,
    syncStatus: 'SYNC_UNKNOWN',
  };
}

/** `currentIdentityEdgeRouterDetail`. */
export function renderCurrentIdentityEdgeRouter(r: identity.Router__Output) {
  return withFields(baseEntity(r, 'edge-routers'), renderCommonEdgeRouter(r));
}

/** A page of edge routers rendered with their outstanding enrollments (one call to the pki service). */
export async function renderEdgeRouters(clients: Clients, routers: identity.Router__Output[]) {
  const byOwner = await enrollmentsByOwner(clients, { edgeRouterIds: routers.map((r) => r.id) });
  return routers.map((r) => renderEdgeRouter(r, byOwner.get(r.id)?.[0]));
}

/**
 * Enrollments as the APIs render them: `enrollmentDetail`, the `identityEnrollments` summary on
 * an identity, and the enrollment fields of a router. The pki service owns them; names of the
 * identities and routers they belong to come from the identity service.
 */
import { entityRef, selfLink } from '@edge/envelope';
import type { pki } from '@edge/proto';
import type { Clients } from '../../clients.js';

type Enrollment = pki.Enrollment__Output;

/** The enrollments of these identities (and routers), grouped by owner id. */
export async function enrollmentsByOwner(clients: Clients, owners: { identityIds?: string[]; edgeRouterIds?: string[]; transitRouterIds?: string[] }): Promise<Map<string, Enrollment[]>> {
  const { enrollments } = await clients.pki.getEnrollmentsOf({
    identityIds: owners.identityIds ?? [], edgeRouterIds: owners.edgeRouterIds ?? [], transitRouterIds: owners.transitRouterIds ?? [],
  });
  const byOwner = new Map<string, Enrollment[]>();
  for (const e of enrollments) {
    const owner = e.identityId ?? e.edgeRouterId ?? e.transitRouterId ?? '';
    byOwner.set(owner, [...(byOwner.get(owner) ?? []), e]);
  }
  return byOwner;
}

/** `identityEnrollments`: the outstanding ott / ottca / updb enrollment of an identity. */
export function renderIdentityEnrollments(enrollments: Enrollment[] | undefined) {
  const out: Record<string, unknown> = {};
  for (const e of enrollments ?? []) {
    const base = { id: e.id, jwt: e.jwt, token: e.token, expiresAt: e.expiresAt };
    if (e.method === 'ott') out.ott = base;
    if (e.method === 'updb') out.updb = base;
    if (e.method === 'ottca') out.ottca = { ...base, caId: e.caId ?? '' };
  }
  return out;
}

/** The enrollment fields of `edgeRouterDetail` / `routerDetail` (null when enrolled). */
export function renderRouterEnrollment(e: Enrollment | undefined) {
  return {
    enrollmentCreatedAt: e?.createdAt ?? null,
    enrollmentExpiresAt: e?.expiresAt ?? null,
    enrollmentJwt: e?.jwt ?? null,
    enrollmentToken: e?.token ?? null,
  };
}

/** Names of the identities and routers a page of enrollments belongs to. */
async function ownerNames(clients: Clients, enrollments: Enrollment[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const identityIds = [...new Set(enrollments.map((e) => e.identityId).filter((id): id is string => !!id))];
  if (identityIds.length > 0) {
    for (const i of (await clients.identity.getIdentities({ ids: identityIds })).identities) names.set(i.id, i.name);
  }
  const routers = enrollments.filter((e) => e.edgeRouterId || e.transitRouterId);
  await Promise.all(routers.map(async (e) => {
    const kind = e.edgeRouterId ? 'edge' : 'transit';
    const id = (e.edgeRouterId ?? e.transitRouterId)!;
    const r = await clients.identity.getRouter({ kind, id }).catch(() => undefined);
    if (r) names.set(id, r.name);
  }));
  return names;
}

/** `enrollmentDetail` of each enrollment. */
export async function renderEnrollments(clients: Clients, enrollments: Enrollment[]) {
  const names = await ownerNames(clients, enrollments);
  return enrollments.map((e) => {
    const out: Record<string, unknown> = {
      id: e.id, createdAt: e.createdAt, updatedAt: e.updatedAt, _links: selfLink('enrollments', e.id), tags: JSON.parse(e.tagsJson || '{}'),
      method: e.method, token: e.token, jwt: e.jwt, expiresAt: e.expiresAt, caId: e.caId ?? null,
      // required by enrollmentDetail in the specs, with no shape given
      details: {},
    };
    if (e.username) out.username = e.username;
    if (e.identityId) Object.assign(out, { identityId: e.identityId, identity: entityRef('identities', 'identities', e.identityId, names.get(e.identityId) ?? '') });
    if (e.edgeRouterId) Object.assign(out, { edgeRouterId: e.edgeRouterId, edgeRouter: entityRef('edge-routers', 'edge-routers', e.edgeRouterId, names.get(e.edgeRouterId) ?? '') });
    if (e.transitRouterId) Object.assign(out, { transitRouterId: e.transitRouterId, transitRouter: entityRef('transit-routers', 'transit-routers', e.transitRouterId, names.get(e.transitRouterId) ?? '') });
    return out;
  });
}

/**
 * Management `/edge-routers`, `/transit-routers` and `/routers` (the older name of the transit
 * router family): list, create, detail, replace, patch, delete; `/edge-router-role-attributes`.
 */
import { created, empty, ok } from '@edge/envelope';
import { parseBody } from '@edge/schemas';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { listBody, listQuery } from '../../shared/list.js';
import { enrollmentsByOwner } from '../../shared/enrollments.js';
import { ALL_EDGE_FIELDS, ALL_TRANSIT_FIELDS, renderEdgeRouter, renderTransitRouter, routerPatchMask, toRouterFields } from './map.js';
import { edgeRouterCreate, edgeRouterPatch, routerCreate, routerPatch } from './schemas.js';
import { checkRouterConfigs, createRouterWithEnrollment, reEnrollRouter } from './owners.js';

type Params = { id: string };

interface Family {
  kind: 'edge' | 'transit';
  collection: string;
  create: typeof edgeRouterCreate | typeof routerCreate;
  patch: typeof edgeRouterPatch | typeof routerPatch;
  fields: string[];
  render: typeof renderEdgeRouter | typeof renderTransitRouter;
}

const FAMILIES: Family[] = [
  { kind: 'edge', collection: 'edge-routers', create: edgeRouterCreate, patch: edgeRouterPatch, fields: ALL_EDGE_FIELDS, render: renderEdgeRouter },
  { kind: 'transit', collection: 'transit-routers', create: routerCreate, patch: routerPatch, fields: ALL_TRANSIT_FIELDS, render: renderTransitRouter },
  { kind: 'transit', collection: 'routers', create: routerCreate, patch: routerPatch, fields: ALL_TRANSIT_FIELDS, render: renderTransitRouter },
];

/** Registers the router families under the management base path. */
export function registerRouterRoutes(route: Router, base: string, clients: Clients): void {
  for (const f of FAMILIES) registerFamily(route, base, clients, f);
  route('GET', `${base}/edge-router-role-attributes`, 'admin', async (req) => {
    const page = await clients.identity.listEdgeRouterRoleAttributes({ query: listQuery(req) });
    return { body: listBody(page.roleAttributes, page.meta) };
  });
}

function registerFamily(route: Router, base: string, clients: Clients, f: Family): void {
  const url = `${base}/${f.collection}`;
  const { kind } = f;

  /** The outstanding enrollment of each router, by router id. */
  const enrollmentsOf = async (ids: string[]) => {
    const byOwner = await enrollmentsByOwner(clients, kind === 'edge' ? { edgeRouterIds: ids } : { transitRouterIds: ids });
    return (id: string) => byOwner.get(id)?.[0];
  };

  route('GET', url, 'admin', async (req) => {
    const page = await clients.identity.listRouters({ kind, query: listQuery(req) });
    const enrollment = await enrollmentsOf(page.routers.map((r) => r.id));
    return { body: listBody(page.routers.map((r) => f.render(r, enrollment(r.id))), page.meta) };
  });

  route('POST', url, 'admin', async (req) => {
    const body = parseBody(f.create, req.body);
    const id = await createRouterWithEnrollment(clients, kind, toRouterFields(body));
    return { status: 201, body: created(id, f.collection) };
  }, { body: f.create, status: 201 });

  route('GET', `${url}/:id`, 'admin', async (req) => {
    const r = await clients.identity.getRouter({ kind, id: (req.params as Params).id });
    return { body: ok(f.render(r, (await enrollmentsOf([r.id]))(r.id))) };
  });

  route('PUT', `${url}/:id`, 'admin', async (req) => {
    const body = parseBody(f.create, req.body);
    const fields = toRouterFields(body);
    await checkRouterConfigs(clients, fields.configs ?? []);
    await clients.identity.updateRouter({ kind, id: (req.params as Params).id, fields, updateMask: f.fields });
    return { body: empty() };
  }, { body: f.create });

  route('PATCH', `${url}/:id`, 'admin', async (req) => {
    const body = parseBody(f.patch, req.body);
    const mask = routerPatchMask(req.body as Record<string, unknown>, f.fields);
    const fields = toRouterFields(body);
    if (mask.includes('configs')) await checkRouterConfigs(clients, fields.configs ?? []);
    await clients.identity.updateRouter({ kind, id: (req.params as Params).id, fields, updateMask: mask });
    return { body: empty() };
  }, { body: f.patch });

  route('DELETE', `${url}/:id`, 'admin', async (req) => {
    await clients.identity.deleteRouter({ kind, id: (req.params as Params).id });
    return { body: empty() };
  });

  if (kind === 'edge') {
    route('POST', `${url}/:id/re-enroll`, 'admin', async (req) => {
      await reEnrollRouter(clients, kind, (req.params as Params).id);
      return { body: empty() };
    });
  }
}

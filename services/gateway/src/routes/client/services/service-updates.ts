/**
 * `GET /current-api-session/service-updates`: when the caller's service list last changed. The
 * list the caller would get now (services, permissions, posture queries and whether each passes
 * for the caller's API session, configs of its session's config types, its own config
 * overrides) is summarised as a digest; the session service keeps the marker and moves it only
 * when the digest changes.
 */
import { createHash } from 'node:crypto';
import { ok } from '@edge/envelope';
import type { common, policy } from '@edge/proto';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { allPages } from '../../shared/related.js';
import { postureStates } from './posture.js';
import { caller } from './routes.js';

/** Registers the service update marker under one API's base path. */
export function registerServiceUpdateRoutes(route: Router, base: string, clients: Clients): void {
  route('GET', `${base}/current-api-session/service-updates`, 'session', async (_req, principal) => {
    const who = await caller(clients, principal, []);
    const services = await allPages(async (query: common.ListQuery) => {
      const page = await clients.policy.listServicesForIdentity({ ...who, query: { ...query, sort: 'id' } });
      return { items: page.services, meta: page.meta };
    });
    // Whether each posture query passes is part of the list (SDKs refresh on it); the seconds
    // left of a timeout are not, they change every second.
    const states = await postureStates(clients, principal!.apiSession!.id, services);
    const passing = [...states].map(([id, q]) => [id, q.isPassing]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
    const sorted = [...services].sort((a: policy.Service__Output, b: policy.Service__Output) => (a.id < b.id ? -1 : 1));
    const digest = createHash('sha256').update(JSON.stringify([sorted, passing])).digest('hex');
    const marker = await clients.session.observeServiceList({ identityId: who.identityId, digest });
    return { body: ok({ lastChangeAt: marker.lastChangeAt }) };
  });
}

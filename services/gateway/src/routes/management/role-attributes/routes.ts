/**
 * Management `/<entity>-role-attributes`: the distinct role attributes in use, filterable
 * (`id contains "eu"`) and paged.
 */
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';
import { listBody, listQuery } from '../../shared/list.js';

/** Registers the role attribute lists under the management base path. */
export function registerRoleAttributeRoutes(route: Router, base: string, clients: Clients): void {
  route('GET', `${base}/identity-role-attributes`, 'admin', async (req) => {
    const page = await clients.identity.listIdentityRoleAttributes({ query: listQuery(req) });
    return { body: listBody(page.roleAttributes, page.meta) };
  });
}

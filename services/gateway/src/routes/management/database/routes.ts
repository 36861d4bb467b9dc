/**
 * Management `/database`: a consistent snapshot of every service's data (written by the session
 * service into its data directory; see the README for restoring it).
 */
import { empty } from '@edge/envelope';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';

/** Registers the database routes under the management base path. */
export function registerDatabaseRoutes(route: Router, base: string, clients: Clients): void {
  route('POST', `${base}/database/snapshot`, 'admin', async (req) => {
    const { path } = await clients.session.createSnapshot({}, { deadlineMs: 120_000 });
    req.log.info({ path }, 'database snapshot written');
    return { body: empty() };
  });
}

/**
 * Management `/database`: a consistent snapshot of every service's data (written by the session
 * service into its data directory; see the README for restoring it), and data integrity runs
 * (one at a time; started with 202, results read afterwards).
 */
import { empty, ok } from '@edge/envelope';
import { withDeadline } from '@edge/rpc';
import type { Clients } from '../../../clients.js';
import type { Router } from '../../../http/route.js';

const SNAPSHOT_DEADLINE_MS = 120_000;

/** Registers the database routes under the management base path. */
export function registerDatabaseRoutes(route: Router, base: string, clients: Clients): void {
  route('POST', `${base}/database/snapshot`, 'admin', async (req) => {
    // Longer than a request's usual budget: a snapshot of a large database takes a while.
    const { path } = await withDeadline(SNAPSHOT_DEADLINE_MS, () => clients.session.createSnapshot({}, { deadlineMs: SNAPSHOT_DEADLINE_MS }));
    req.log.info({ path }, 'database snapshot written');
    return { body: empty() };
  });

  for (const [path, fix] of [['check-data-integrity', false], ['fix-data-integrity', true]] as const) {
    route('POST', `${base}/database/${path}`, 'admin', async () => {
      await clients.session.startIntegrityCheck({ fix });
      return { status: 202, body: empty() };
    }, { status: 202 });
  }

  route('GET', `${base}/database/data-integrity-results`, 'admin', async () => {
    const r = await clients.session.getIntegrityResults({});
    return {
      body: ok({
        inProgress: r.inProgress, fixingErrors: r.fixingErrors, tooManyErrors: r.tooManyErrors, startTime: r.startTime, endTime: r.endTime,
        error: r.error, results: r.results.map((x) => ({ description: x.description, fixed: x.fixed })),
      }),
    };
  });
}
